#include "functions/math/internal.h"

#include <utility>

#include "autograd/function_node.h"
#include "core/dtype.h"

namespace rensa::functions::math_detail {
namespace {

class Transpose : public FunctionNode {
public:
    explicit Transpose(Axes axes) : axes_{std::move(axes)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0].transpose(axes_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        Axes inverse(axes_.size());
        for (int i = 0; i < axes_.size(); ++i) inverse[axes_[i]] = i;
        return {transpose(gys[0], inverse)};
    }
    std::string label() const override { return "Transpose"; }

private:
    Axes axes_;
};

bool is_identity(const Axes& axes) {
    for (int i = 0; i < axes.size(); ++i) {
        if (axes[i] != i) return false;
    }
    return true;
}

}  // namespace

void check_float(std::string_view function, const Variable& x, std::string_view arg) {
    RENSA_CHECK(x.defined(), ValueError, function, ": ", arg, " is an undefined Variable");
    RENSA_CHECK(is_float(x.dtype()), DtypeError, function, ": Expect: ", arg,
                ".dtype.kind == 'f', Actual: ", dtype_name(x.dtype()));
}

void check_same_float(std::string_view function, const Variable& a, const Variable& b, std::string_view a_name,
                      std::string_view b_name) {
    check_float(function, a, a_name);
    check_float(function, b, b_name);
    RENSA_CHECK(a.dtype() == b.dtype(), DtypeError, function, ": Expect: ", a_name, ".dtype == ", b_name,
                ".dtype, Actual: ", dtype_name(a.dtype()), " != ", dtype_name(b.dtype()));
}

Variable transpose(const Variable& x, const Axes& axes) {
    if (is_identity(axes) && axes.size() == x.ndim()) return x;
    return apply1<Transpose>({x}, axes);
}

Shape kept_shape(const Shape& shape, const std::optional<Axes>& axes, std::string_view function) {
    Shape kept = shape;
    const int ndim = shape.size();
    for (int axis : axes ? normalize_axes(*axes, ndim, function) : all_axes(ndim)) kept[axis] = 1;
    return kept;
}

}  // namespace rensa::functions::math_detail
