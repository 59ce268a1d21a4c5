// as_strided: Chainer's view of x's memory with a given shape, strides and storage offset
// (in elements). The backward scatter-adds gy to the memory positions the view reads and
// gathers them back at x's positions (Chainer's AsStridedGrad), from differentiable
// gather/scatter nodes, so it is differentiable again.

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

// The memory position (in elements from the storage's start) of every element of an array
// with this geometry, in row-major order. Computed on the host from the geometry alone.
std::vector<int64_t> positions(const Shape& shape, const std::vector<int64_t>& strides, int64_t offset) {
    std::vector<int64_t> out(static_cast<size_t>(shape_size(shape)), offset);
    int64_t block = 1;
    for (int d = shape.size() - 1; d >= 0; --d) {
        for (size_t i = 0; i < out.size(); ++i) {
            out[i] += ((static_cast<int64_t>(i) / block) % shape[d]) * strides[static_cast<size_t>(d)];
        }
        block *= shape[d];
    }
    return out;
}

std::vector<int64_t> element_strides(const Array& x) {
    std::vector<int64_t> s;
    for (int d = 0; d < x.ndim(); ++d) s.push_back(x.strides()[d] / x.itemsize());
    return s;
}

struct Geometry {
    Shape shape;
    std::vector<int64_t> strides;  // elements
    int64_t offset;                // elements
};

class AsStrided : public FunctionNode {
public:
    explicit AsStrided(Geometry view) : view_{std::move(view)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        const Array& x = xs[0];
        input_ = Geometry{x.shape(), element_strides(x), x.offset() / x.itemsize()};
        Strides bytes;
        for (int64_t s : view_.strides) bytes.push_back(s * x.itemsize());
        return {Array(x.storage(), view_.shape, bytes, view_.offset * x.itemsize(), x.dtype())};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "AsStrided"; }

private:
    Geometry view_, input_;
};

// gx[j] = (sum of gy over the view elements at x[j]'s position) / (how many elements of x
// share that position), as Chainer's AsStridedGrad.
std::vector<Variable> AsStrided::backward(const Indexes&, const std::vector<Variable>& gys) {
    const Variable& gy = gys[0];
    const std::vector<int64_t> out_pos = positions(view_.shape, view_.strides, view_.offset);
    std::vector<int64_t> in_pos = positions(input_.shape, input_.strides, input_.offset);
    if (out_pos.empty() || in_pos.empty()) return {array_detail::zeros(input_.shape, gy.dtype(), gy.device())};
    const int64_t base =
        std::min(*std::min_element(out_pos.begin(), out_pos.end()), *std::min_element(in_pos.begin(), in_pos.end()));
    const int64_t top =
        std::max(*std::max_element(out_pos.begin(), out_pos.end()), *std::max_element(in_pos.begin(), in_pos.end()));
    std::vector<int64_t> out_index(out_pos.size());
    std::transform(out_pos.begin(), out_pos.end(), out_index.begin(), [base](int64_t p) { return p - base; });
    std::unordered_map<int64_t, int64_t> sharing;
    for (int64_t& p : in_pos) ++sharing[p -= base];
    const Device device = gy.device();
    const Variable memory = array_detail::scatter_along(
        reshape(gy, {gy.size()}), Array::from_vector(out_index, {static_cast<int64_t>(out_index.size())}, device), 0,
        {top - base + 1});
    Variable gx =
        array_detail::take_along(memory, Array::from_vector(in_pos, {static_cast<int64_t>(in_pos.size())}, device), 0);
    if (sharing.size() != in_pos.size()) {
        std::vector<double> count(in_pos.size());
        std::transform(in_pos.begin(), in_pos.end(), count.begin(), [&](int64_t p) { return 1.0 / sharing[p]; });
        gx = gx * Variable(Array::from_vector(count, {static_cast<int64_t>(count.size())}, device).astype(gy.dtype()),
                           false);
    }
    return {reshape(gx, input_.shape)};
}

}  // namespace

Variable as_strided(const Variable& x, const Shape& shape, const std::vector<int64_t>& strides,
                    std::optional<int64_t> storage_offset) {
    expect_defined(x, "as_strided", "x");
    RENSA_CHECK(static_cast<int64_t>(strides.size()) == shape.size(), ValueError,
                "as_strided: Expect: len(strides) == len(shape), Actual: ", strides.size(), " strides for shape ",
                shape);
    const int64_t offset = storage_offset.value_or(x.array().offset() / x.array().itemsize());
    for (int d = 0; d < shape.size(); ++d) {
        RENSA_CHECK(shape[d] >= 0, ValueError, "as_strided: Expect: shape >= 0, Actual: ", shape);
    }
    int64_t low = offset, high = offset;  // the lowest and highest positions the view reads
    for (int d = 0; d < shape.size() && shape_size(shape) > 0; ++d) {
        (strides[static_cast<size_t>(d)] < 0 ? low : high) += (shape[d] - 1) * strides[static_cast<size_t>(d)];
    }
    RENSA_CHECK(low >= 0, ValueError, "as_strided: Out of buffer: too small index was specified (", low, ")");
    const int64_t capacity = x.array().storage()->bytes() / x.array().itemsize();
    RENSA_CHECK(high < capacity || shape_size(shape) == 0, ValueError,
                "as_strided: Out of buffer: too large index was specified (", high, ", the memory holds ", capacity,
                " elements)");
    return std::make_shared<AsStrided>(Geometry{shape, strides, offset})->apply({x})[0];
}

}  // namespace rensa::functions
