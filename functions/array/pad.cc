// pad (constant mode): the gradient is the interior slice of the output's gradient.

#include <memory>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"

namespace rensa::functions {
namespace {

using PadWidth = std::vector<std::pair<int64_t, int64_t>>;

class Pad : public FunctionNode {
public:
    Pad(PadWidth pad_width, Scalar value) : pad_width_{std::move(pad_width)}, value_{value} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::pad(xs[0], pad_width_, value_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        std::vector<ItemIndex> interior;
        const Shape& shape = input_shape(0);
        for (int d = 0; d < shape.size(); ++d) {
            const int64_t before = pad_width_[static_cast<size_t>(d)].first;
            interior.emplace_back(Slice{before, before + shape[d]});
        }
        return {get_item(gys[0], interior)};
    }
    std::string label() const override { return "Pad"; }

private:
    PadWidth pad_width_;  // one pair per axis
    Scalar value_;
};

}  // namespace

Variable pad(const Variable& x, const PadWidth& pad_width, std::string_view mode, Scalar constant_values) {
    expect_defined(x, "pad", "x");
    RENSA_CHECK(mode == "constant", ValueError, "pad: only mode 'constant' is supported, got '", mode, "'");
    const size_t ndim = static_cast<size_t>(x.ndim());
    RENSA_CHECK(pad_width.size() == 1 || pad_width.size() == ndim, ValueError, "pad: pad_width has ", pad_width.size(),
                " pairs but x of shape ", x.shape(), " needs 1 or ", ndim);
    PadWidth widths = pad_width.size() == ndim ? pad_width : PadWidth(ndim, pad_width[0]);
    for (size_t d = 0; d < ndim; ++d) {
        RENSA_CHECK(widths[d].first >= 0 && widths[d].second >= 0, ValueError, "pad: pad_width[", d, "] = (",
                    widths[d].first, ", ", widths[d].second, ") must be non-negative");
    }
    return std::make_shared<Pad>(std::move(widths), constant_values)->apply({x})[0];
}

Variable pad(const Variable& x, int64_t pad_width, std::string_view mode, Scalar constant_values) {
    return pad(x, PadWidth{{pad_width, pad_width}}, mode, constant_values);
}

}  // namespace rensa::functions
