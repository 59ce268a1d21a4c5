// Elementwise unary functions: log1p log2 log10 sqrt rsqrt square absolute sin cos tan
// arctan sinh cosh erf. Each backward is built from differentiable functions.

#include <cmath>
#include <numbers>

#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/math.h"
#include "functions/math/internal.h"

namespace rensa::functions {
namespace {

// What a unary function computes and which of x (input) and y (output) its gradient needs.
struct UnarySpec {
    const char* name;
    Array (*forward)(const Array& x);
    Variable (*backward)(const Variable& x, const Variable& y, const Variable& gy);
    bool needs_x, needs_y;
};

class Unary : public FunctionNode {
public:
    explicit Unary(const UnarySpec& spec) : spec_{spec} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        if (spec_.needs_x) retain_inputs({0});
        if (spec_.needs_y) retain_outputs({0});
        return {spec_.forward(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = spec_.needs_x ? retained_input(0) : Variable();
        const Variable y = spec_.needs_y ? retained_output(0) : Variable();
        return {spec_.backward(x, y, gys[0])};
    }
    std::string label() const override { return spec_.name; }

private:
    const UnarySpec& spec_;
};

Variable unary(const UnarySpec& spec, const Variable& x, const char* name) {
    math_detail::check_float(name, x);
    return math_detail::apply1<Unary>({x}, spec);
}

using std::numbers::ln10;
using std::numbers::ln2;

// The gradient gy * f'(x) of each function.
const UnarySpec kLog1p{"Log1p", ops::log1p,
                       [](const Variable& x, const Variable&, const Variable& gy) { return gy / (x + 1.0); }, true,
                       false};
const UnarySpec kLog2{"Log2", ops::log2,
                      [](const Variable& x, const Variable&, const Variable& gy) { return gy * (1.0 / ln2) / x; }, true,
                      false};
const UnarySpec kLog10{"Log10", ops::log10,
                       [](const Variable& x, const Variable&, const Variable& gy) { return gy * (1.0 / ln10) / x; },
                       true, false};
const UnarySpec kSqrt{"Sqrt", ops::sqrt,
                      [](const Variable&, const Variable& y, const Variable& gy) { return gy * 0.5 / y; }, false, true};
const UnarySpec kRsqrt{"Rsqrt", ops::rsqrt,
                       [](const Variable&, const Variable& y, const Variable& gy) { return gy * -0.5 * (y * y * y); },
                       false, true};
const UnarySpec kSquare{"Square", ops::square,
                        [](const Variable& x, const Variable&, const Variable& gy) { return gy * 2.0 * x; }, true,
                        false};
const UnarySpec kAbsolute{"Absolute", ops::abs,
                          [](const Variable& x, const Variable&, const Variable& gy) {
                              return gy * Variable(ops::sign(x.array()), false);  // constant: linear in gy
                          },
                          true, false};
const UnarySpec kSin{"Sin", ops::sin,
                     [](const Variable& x, const Variable&, const Variable& gy) { return gy * cos(x); }, true, false};
const UnarySpec kCos{"Cos", ops::cos,
                     [](const Variable& x, const Variable&, const Variable& gy) { return -(gy * sin(x)); }, true,
                     false};
const UnarySpec kTan{"Tan", ops::tan,
                     [](const Variable& x, const Variable&, const Variable& gy) { return gy / square(cos(x)); }, true,
                     false};
const UnarySpec kArctan{"Arctan", ops::arctan,
                        [](const Variable& x, const Variable&, const Variable& gy) { return gy / (square(x) + 1.0); },
                        true, false};
const UnarySpec kSinh{"Sinh", ops::sinh,
                      [](const Variable& x, const Variable&, const Variable& gy) { return gy * cosh(x); }, true, false};
const UnarySpec kCosh{"Cosh", ops::cosh,
                      [](const Variable& x, const Variable&, const Variable& gy) { return gy * sinh(x); }, true, false};
const UnarySpec kErf{"Erf", ops::erf,
                     [](const Variable& x, const Variable&, const Variable& gy) {
                         return gy * std::numbers::inv_sqrtpi * 2.0 * exp(-square(x));
                     },
                     true, false};

}  // namespace

Variable log1p(const Variable& x) { return unary(kLog1p, x, "log1p"); }
Variable log2(const Variable& x) { return unary(kLog2, x, "log2"); }
Variable log10(const Variable& x) { return unary(kLog10, x, "log10"); }
Variable sqrt(const Variable& x) { return unary(kSqrt, x, "sqrt"); }
Variable rsqrt(const Variable& x) { return unary(kRsqrt, x, "rsqrt"); }
Variable square(const Variable& x) { return unary(kSquare, x, "square"); }
Variable absolute(const Variable& x) { return unary(kAbsolute, x, "absolute"); }
Variable sin(const Variable& x) { return unary(kSin, x, "sin"); }
Variable cos(const Variable& x) { return unary(kCos, x, "cos"); }
Variable tan(const Variable& x) { return unary(kTan, x, "tan"); }
Variable arctan(const Variable& x) { return unary(kArctan, x, "arctan"); }
Variable sinh(const Variable& x) { return unary(kSinh, x, "sinh"); }
Variable cosh(const Variable& x) { return unary(kCosh, x, "cosh"); }
Variable erf(const Variable& x) { return unary(kErf, x, "erf"); }

}  // namespace rensa::functions
