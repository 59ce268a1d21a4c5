// tile (backward: sum over the copies) and repeat (a gather whose backward scatter-adds).

#include <memory>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

// reps and x's shape padded with leading ones to one length (numpy's rule).
struct TileShapes {
    Shape x, reps;
};
TileShapes tile_shapes(const Shape& x_shape, const std::vector<int64_t>& reps) {
    const int ndim = std::max(x_shape.size(), static_cast<int>(reps.size()));
    TileShapes s{Shape(ndim - x_shape.size(), 1), Shape(ndim - static_cast<int>(reps.size()), 1)};
    for (int64_t n : x_shape) s.x.push_back(n);
    for (int64_t r : reps) s.reps.push_back(r);
    return s;
}

class Tile : public FunctionNode {
public:
    explicit Tile(std::vector<int64_t> reps) : reps_{std::move(reps)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::tile(xs[0], reps_)}; }
    // gy viewed as (r0, s0, r1, s1, ...) summed over the r axes.
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const TileShapes s = tile_shapes(input_shape(0), reps_);
        Shape interleaved;
        Axes copies;
        for (int d = 0; d < s.x.size(); ++d) {
            copies.push_back(static_cast<int>(interleaved.size()));
            interleaved.push_back(s.reps[d]);
            interleaved.push_back(s.x[d]);
        }
        return {reshape(rensa::sum(reshape(gys[0], interleaved), copies), input_shape(0))};
    }
    std::string label() const override { return "Tile"; }

private:
    std::vector<int64_t> reps_;
};

}  // namespace

Variable tile(const Variable& x, const std::vector<int64_t>& reps) {
    expect_defined(x, "tile", "x");
    for (size_t i = 0; i < reps.size(); ++i) {
        RENSA_CHECK(reps[i] >= 0, ValueError, "tile: reps[", i, "] = ", reps[i], " must be non-negative");
    }
    return std::make_shared<Tile>(reps)->apply({x})[0];
}

Variable tile(const Variable& x, int64_t reps) { return tile(x, std::vector<int64_t>{reps}); }

Variable repeat(const Variable& x, const std::vector<int64_t>& repeats, std::optional<int> axis) {
    expect_defined(x, "repeat", "x");
    const Variable src = axis ? x : flatten(x);
    const int ndim = src.ndim();
    const int a = axis.value_or(0);
    RENSA_CHECK(a >= -ndim && a < ndim, DimensionError, "repeat: Expect: -", ndim, " <= axis < ", ndim,
                ", Actual: axis = ", a, " for x of shape ", x.shape());
    const int64_t n = src.shape()[a < 0 ? a + ndim : a];
    RENSA_CHECK(repeats.size() == 1 || static_cast<int64_t>(repeats.size()) == n, ValueError,
                "repeat: ", repeats.size(), " repeats do not match the axis length ", n, " (x.shape ", x.shape(), ")");
    std::vector<int64_t> gather;  // position i, repeats[i] times
    for (int64_t i = 0; i < n; ++i) {
        const int64_t r = repeats[repeats.size() == 1 ? 0 : static_cast<size_t>(i)];
        RENSA_CHECK(r >= 0, ValueError, "repeat: repeats must be non-negative, got ", r);
        gather.insert(gather.end(), static_cast<size_t>(r), i);
    }
    const auto count = static_cast<int64_t>(gather.size());
    return array_detail::take_along(src, Array::from_vector(gather, {count}, x.device()), a < 0 ? a + ndim : a);
}

Variable repeat(const Variable& x, int64_t repeats, std::optional<int> axis) {
    return repeat(x, std::vector<int64_t>{repeats}, axis);
}

}  // namespace rensa::functions
