// The unary elementwise functions of F, one row each over core/elementwise_unary.h: the
// forward is the table's formula (on every backend), the row here adds Chainer's label and
// the gradient gy * f'(x), built from differentiable functions so double backprop follows.
// Note [Elementwise tables] in core/elementwise_table.h.

#include <numbers>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/activation.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

// What a unary function adds to its table row: Chainer's label, the gradient and which of x
// (input) and y (output) the gradient needs.
struct UnarySpec {
    UnaryOp op;
    const char* label;
    Variable (*backward)(const Variable& x, const Variable& y, const Variable& gy);
    bool needs_x, needs_y;
};

class Unary : public FunctionNode {
public:
    explicit Unary(const UnarySpec& spec) : spec_{spec} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        if (spec_.needs_x) retain_inputs({0});
        if (spec_.needs_y) retain_outputs({0});
        return {ops::elementwise(spec_.op, xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = spec_.needs_x ? retained_input(0) : Variable();
        const Variable y = spec_.needs_y ? retained_output(0) : Variable();
        return {spec_.backward(x, y, gys[0])};
    }
    std::string label() const override { return spec_.label; }

private:
    const UnarySpec& spec_;
};

Variable unary(const UnarySpec& spec, const Variable& x) {
    expect_float(x, op_name(spec.op), "x");
    return math_detail::apply1<Unary>({x}, spec);
}

// Chainer's floor, ceil, fix and sign: not differentiable, a Variable that does not require
// grad, in x's dtype.
Variable rounding(UnaryOp op, const Variable& x) {
    RENSA_CHECK(x.defined(), ValueError, op_name(op), ": Expect: x to be defined, Actual: undefined Variable");
    return Variable(ops::elementwise(op, x.array()).astype(x.dtype(), false), false);
}

using std::numbers::inv_sqrtpi;
using std::numbers::ln10;
using std::numbers::ln2;
using std::numbers::sqrt2;
using V = const Variable&;

// The gradient gy * f'(x) of each function.
const UnarySpec kExpm1{UnaryOp::kExpm1, "Expm1", [](V, V y, V gy) { return gy * (y + 1.0); }, false, true};
const UnarySpec kLog1p{UnaryOp::kLog1p, "Log1p", [](V x, V, V gy) { return gy / (x + 1.0); }, true, false};
const UnarySpec kLog2{UnaryOp::kLog2, "Log2", [](V x, V, V gy) { return gy * (1.0 / ln2) / x; }, true, false};
const UnarySpec kLog10{UnaryOp::kLog10, "Log10", [](V x, V, V gy) { return gy * (1.0 / ln10) / x; }, true, false};
const UnarySpec kSqrt{UnaryOp::kSqrt, "Sqrt", [](V, V y, V gy) { return gy * 0.5 / y; }, false, true};
const UnarySpec kRsqrt{UnaryOp::kRsqrt, "Rsqrt", [](V, V y, V gy) { return gy * -0.5 * (y * y * y); }, false, true};
const UnarySpec kSquare{UnaryOp::kSquare, "Square", [](V x, V, V gy) { return gy * 2.0 * x; }, true, false};
const UnarySpec kAbsolute{UnaryOp::kAbs, "Absolute",
                          [](V x, V, V gy) {
                              return gy * Variable(ops::sign(x.array()), false);  // constant: linear in gy
                          },
                          true, false};
const UnarySpec kSin{UnaryOp::kSin, "Sin", [](V x, V, V gy) { return gy * cos(x); }, true, false};
const UnarySpec kCos{UnaryOp::kCos, "Cos", [](V x, V, V gy) { return -(gy * sin(x)); }, true, false};
const UnarySpec kTan{UnaryOp::kTan, "Tan", [](V x, V, V gy) { return gy / square(cos(x)); }, true, false};
const UnarySpec kArcsin{UnaryOp::kArcsin, "Arcsin", [](V x, V, V gy) { return gy * rsqrt(1.0 - square(x)); }, true,
                        false};
const UnarySpec kArccos{UnaryOp::kArccos, "Arccos", [](V x, V, V gy) { return -(gy * rsqrt(1.0 - square(x))); }, true,
                        false};
const UnarySpec kArctan{UnaryOp::kArctan, "Arctan", [](V x, V, V gy) { return gy / (square(x) + 1.0); }, true, false};
const UnarySpec kArctanh{UnaryOp::kArctanh, "Arctanh", [](V x, V, V gy) { return gy / (1.0 - square(x)); }, true,
                         false};
const UnarySpec kSinh{UnaryOp::kSinh, "Sinh", [](V x, V, V gy) { return gy * cosh(x); }, true, false};
const UnarySpec kCosh{UnaryOp::kCosh, "Cosh", [](V x, V, V gy) { return gy * sinh(x); }, true, false};
const UnarySpec kTanh{UnaryOp::kTanh, "Tanh", [](V, V y, V gy) { return gy * (1.0 - y * y); }, false, true};
const UnarySpec kSigmoid{UnaryOp::kSigmoid, "Sigmoid", [](V, V y, V gy) { return gy * y * (1.0 - y); }, false, true};
const UnarySpec kErf{UnaryOp::kErf, "Erf", [](V x, V, V gy) { return gy * inv_sqrtpi * 2.0 * exp(-square(x)); }, true,
                     false};
const UnarySpec kErfc{UnaryOp::kErfc, "Erfc", [](V x, V, V gy) { return gy * inv_sqrtpi * -2.0 * exp(-square(x)); },
                      true, false};
const UnarySpec kNdtr{UnaryOp::kNdtr, "Ndtr",
                      [](V x, V, V gy) { return gy * (inv_sqrtpi / sqrt2) * exp(square(x) * -0.5); }, true, false};
const UnarySpec kErfcx{UnaryOp::kErfcx, "Erfcx", [](V x, V y, V gy) { return gy * (2.0 * x * y - 2.0 * inv_sqrtpi); },
                       true, true};
// The special functions (Note [Special functions] in core/special_math.h), Chainer's gradients.
const UnarySpec kLgamma{UnaryOp::kLgamma, "LGamma", [](V x, V, V gy) { return gy * digamma(x); }, true, false};
const UnarySpec kDigamma{UnaryOp::kDigamma, "DiGamma",
                         [](V x, V, V gy) {
                             const Variable order(ops::full({}, Scalar(int64_t{1}), Dtype::kInt32, x.device()), false);
                             return gy * polygamma(order, x);
                         },
                         true, false};
const UnarySpec kLogNdtr{UnaryOp::kLogNdtr, "LogNdtr",
                         [](V x, V, V gy) { return gy * (2.0 * inv_sqrtpi / sqrt2) / erfcx(x * (-1.0 / sqrt2)); }, true,
                         false};
const UnarySpec kNdtri{UnaryOp::kNdtri, "Ndtri",
                       [](V, V y, V gy) { return gy * (sqrt2 / inv_sqrtpi) * exp(square(y) * 0.5); }, false, true};
const UnarySpec kErfinv{UnaryOp::kErfinv, "ErfInv",
                        [](V, V y, V gy) { return gy * (0.5 / inv_sqrtpi) * exp(square(y)); }, false, true};
// erfcinv' = -sqrt(pi) / 2 * exp(y^2) (Chainer's ErfcInv).
const UnarySpec kErfcinv{UnaryOp::kErfcinv, "erfcinv",
                         [](V, V y, V gy) { return gy * (-0.5 / inv_sqrtpi) * exp(square(y)); }, false, true};

}  // namespace

Variable expm1(const Variable& x) { return unary(kExpm1, x); }
Variable log1p(const Variable& x) { return unary(kLog1p, x); }
Variable log2(const Variable& x) { return unary(kLog2, x); }
Variable log10(const Variable& x) { return unary(kLog10, x); }
Variable sqrt(const Variable& x) { return unary(kSqrt, x); }
Variable rsqrt(const Variable& x) { return unary(kRsqrt, x); }
Variable square(const Variable& x) { return unary(kSquare, x); }
Variable absolute(const Variable& x) { return unary(kAbsolute, x); }
Variable sin(const Variable& x) { return unary(kSin, x); }
Variable cos(const Variable& x) { return unary(kCos, x); }
Variable tan(const Variable& x) { return unary(kTan, x); }
Variable arcsin(const Variable& x) { return unary(kArcsin, x); }
Variable arccos(const Variable& x) { return unary(kArccos, x); }
Variable arctan(const Variable& x) { return unary(kArctan, x); }
Variable arctanh(const Variable& x) { return unary(kArctanh, x); }
Variable sinh(const Variable& x) { return unary(kSinh, x); }
Variable cosh(const Variable& x) { return unary(kCosh, x); }
Variable tanh(const Variable& x) { return unary(kTanh, x); }
Variable sigmoid(const Variable& x) { return unary(kSigmoid, x); }
Variable erf(const Variable& x) { return unary(kErf, x); }
Variable erfc(const Variable& x) { return unary(kErfc, x); }
Variable ndtr(const Variable& x) { return unary(kNdtr, x); }
Variable erfcx(const Variable& x) { return unary(kErfcx, x); }
Variable lgamma(const Variable& x) { return unary(kLgamma, x); }
Variable digamma(const Variable& x) { return unary(kDigamma, x); }
Variable log_ndtr(const Variable& x) { return unary(kLogNdtr, x); }
Variable ndtri(const Variable& x) { return unary(kNdtri, x); }
Variable erfinv(const Variable& x) { return unary(kErfinv, x); }
Variable erfcinv(const Variable& x) { return unary(kErfcinv, x); }

Variable floor(const Variable& x) { return rounding(UnaryOp::kFloor, x); }
Variable ceil(const Variable& x) { return rounding(UnaryOp::kCeil, x); }
Variable fix(const Variable& x) { return rounding(UnaryOp::kTrunc, x); }
Variable sign(const Variable& x) { return rounding(UnaryOp::kSign, x); }

}  // namespace rensa::functions
