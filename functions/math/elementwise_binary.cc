// Binary elementwise functions of F over core/elementwise_binary.h rows that autograd's
// operators do not cover: arctan2, fmod, polygamma and zeta (Chainer's F.arctan2,
// F.fmod, F.polygamma, F.zeta). Operands broadcast; gradients are reduced back to each operand's shape.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/ops/elementwise.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

// y = arctan2(x1, x2); gx1 = gy * x2 / (x1^2 + x2^2), gx2 = -gy * x1 / (x1^2 + x2^2).
class Arctan2 : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::arctan2(xs[0], xs[1])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x1 = retained_input(0), x2 = retained_input(1);
        const Variable g = gys[0] / (square(x1) + square(x2));
        return {sum_to(g * x2, x1.shape()), sum_to(-(g * x1), x2.shape())};
    }
    std::string label() const override { return "Arctan2"; }
};

// y = fmod(x, d) = x - d * fix(x / d); gx = gy, gd = -gy * fix(x / d) (a constant).
class Fmod : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::fmod(xs[0], xs[1])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0), d = retained_input(1);
        const Variable quotient(ops::trunc(ops::divide(x.array(), d.array())), false);
        return {sum_to(gys[0], x.shape()), sum_to(-(gys[0] * quotient), d.shape())};
    }
    std::string label() const override { return "Fmod"; }
};

// y = polygamma(n, x) (Chainer's PolyGamma): n is an integer array, held constant;
// gx = gy * polygamma(n + 1, x).
class Polygamma : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::elementwise(BinaryOp::kPolygamma, xs[0].astype(xs[1].dtype(), false), xs[1])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable n = retained_input(0), x = retained_input(1);
        const Variable next(ops::add(n.array(), Scalar(int64_t{1})), false);
        return {Variable(), sum_to(gys[0] * polygamma(next, x), x.shape())};
    }
    std::string label() const override { return "PolyGamma"; }
};

// y = zeta(x, q) (Chainer's Zeta): the exponent x is held constant, as Chainer's (it is an
// attribute there); gq = gy * -x * zeta(x + 1, q).
class Zeta : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::elementwise(BinaryOp::kZeta, xs[0].astype(xs[1].dtype(), false), xs[1])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0), q = retained_input(1);
        const Variable exponent(x.array().astype(q.dtype(), false), false);
        const Variable next(ops::add(exponent.array(), Scalar(1.0)), false);
        return {Variable(), sum_to(gys[0] * -exponent * zeta(next, q), q.shape())};
    }
    std::string label() const override { return "zeta"; }
};

}  // namespace

Variable zeta(const Variable& x, const Variable& q) {
    expect_defined(x, "zeta", "x");
    RENSA_CHECK(x.dtype() != Dtype::kBool, DtypeError, "zeta: Expect: x.dtype.kind in 'iuf', Actual: bool");
    expect_float(q, "zeta", "q");
    return math_detail::apply1<Zeta>({Variable(x.array(), false), q});
}

Variable polygamma(const Variable& n, const Variable& x) {
    expect_signed_integer(n, "polygamma", "n");
    expect_float(x, "polygamma", "x");
    return math_detail::apply1<Polygamma>({n, x});
}

Variable arctan2(const Variable& x1, const Variable& x2) {
    expect_same_float(x1, x2, "arctan2", "x1", "x2");
    return math_detail::apply1<Arctan2>({x1, x2});
}

Variable fmod(const Variable& x, const Variable& divisor) {
    expect_same_float(x, divisor, "fmod", "x", "divisor");
    return math_detail::apply1<Fmod>({x, divisor});
}

}  // namespace rensa::functions
