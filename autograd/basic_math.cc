#include "autograd/basic_math.h"

#include <cmath>
#include <initializer_list>
#include <memory>
#include <vector>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/elementwise.h"

namespace rensa {

namespace {

template <class F, class... Args>
Variable apply1(std::initializer_list<Variable> inputs, Args&&... args) {
    return std::move(std::make_shared<F>(std::forward<Args>(args)...)->apply(inputs)[0]);
}

// --- Unary ---

class Neg : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::negative(xs[0])}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override { return {-gys[0]}; }
};

class Exp : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::exp(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] * retained_output(0)};
    }
};

class Log : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::log(xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] / retained_input(0)};
    }
};

// --- Variable op Variable (broadcasting: each grad is summed back to its input's shape) ---

class Add : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::add(xs[0], xs[1])}; }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        for (int i : targets) gxs.push_back(sum_to(gys[0], input_shape(i)));
        return gxs;
    }
};

class Sub : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::subtract(xs[0], xs[1])}; }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        for (int i : targets) gxs.push_back(i == 0 ? sum_to(gys[0], input_shape(0)) : -sum_to(gys[0], input_shape(1)));
        return gxs;
    }
};

class Mul : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::multiply(xs[0], xs[1])};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        for (int i : targets) gxs.push_back(sum_to(gys[0] * retained_input(1 - i), input_shape(i)));
        return gxs;
    }
};

class Div : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::divide(xs[0], xs[1])};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Variable x1 = retained_input(1);
        const Variable gx0 = gys[0] / x1;
        std::vector<Variable> gxs;
        for (int i : targets) {
            gxs.push_back(i == 0 ? sum_to(gx0, input_shape(0)) : sum_to(-gx0 * retained_input(0) / x1, input_shape(1)));
        }
        return gxs;
    }
};

class Pow : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        retain_outputs({0});
        return {ops::power(xs[0], xs[1])};
    }
    // d(a^b)/da = b a^(b-1); d(a^b)/db = a^b log(a), computed only when b needs it.
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const Variable a = retained_input(0);
        const Variable b = retained_input(1);
        std::vector<Variable> gxs;
        for (int i : targets) {
            gxs.push_back(i == 0 ? sum_to(gys[0] * b * pow(a, b - 1.0), input_shape(0))
                                 : sum_to(gys[0] * retained_output(0) * log(a), input_shape(1)));
        }
        return gxs;
    }
};

// --- Variable op Scalar and Scalar op Variable ---

// The constant of a node below as its FunctionNode::attributes(): {"value", c} (an integer
// constant stays an integer).
FunctionNode::Attributes constant_attributes(Scalar c) {
    if (c.kind() == ScalarKind::kFloat) return {{"value", c.to_double()}};
    if (c.kind() == ScalarKind::kBool) return {{"value", c.to_int() != 0}};
    return {{"value", c.to_int()}};
}

class AddConstant : public FunctionNode {
public:
    explicit AddConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::add(xs[0], c_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override { return {gys[0]}; }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

class SubConstant : public FunctionNode {  // x - c
public:
    explicit SubConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::subtract(xs[0], c_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override { return {gys[0]}; }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

class SubFromConstant : public FunctionNode {  // c - x
public:
    explicit SubFromConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::subtract(c_, xs[0])}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override { return {-gys[0]}; }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

class MulConstant : public FunctionNode {
public:
    explicit MulConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::multiply(xs[0], c_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override { return {gys[0] * c_}; }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

class DivByConstant : public FunctionNode {  // x / c
public:
    explicit DivByConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::divide(xs[0], c_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override { return {gys[0] / c_}; }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

class DivFromConstant : public FunctionNode {  // c / x
public:
    explicit DivFromConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::divide(c_, xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0);
        return {gys[0] * -c_.to_double() / (x * x)};
    }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

class PowByConstant : public FunctionNode {  // x ** c
public:
    explicit PowByConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::power(xs[0], c_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Scalar c_minus_1 =
            c_.kind() == ScalarKind::kFloat ? Scalar(c_.to_double() - 1.0) : Scalar(c_.to_int() - 1);
        return {gys[0] * c_ * pow(retained_input(0), c_minus_1)};
    }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

class PowFromConstant : public FunctionNode {  // c ** x
public:
    explicit PowFromConstant(Scalar c) : c_{c} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_outputs({0});
        return {ops::power(c_, xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] * retained_output(0) * std::log(c_.to_double())};
    }

    Attributes attributes() const override { return constant_attributes(c_); }

private:
    Scalar c_;
};

}  // namespace

Variable neg(const Variable& x) {
    expect_float(x, "neg", "x");
    return apply1<Neg>({x});
}
Variable exp(const Variable& x) {
    expect_float(x, "exp", "x");
    return apply1<Exp>({x});
}
Variable log(const Variable& x) {
    expect_float(x, "log", "x");
    return apply1<Log>({x});
}

#define RENSA_DEFINE_VARIABLE_BINARY(name, VarVar, VarConst, ConstVar) \
    Variable name(const Variable& a, const Variable& b) {              \
        expect_same_float(a, b, #name, "a", "b");                      \
        return apply1<VarVar>({a, b});                                 \
    }                                                                  \
    Variable name(const Variable& a, Scalar b) {                       \
        expect_float(a, #name, "a");                                   \
        return apply1<VarConst>({a}, b);                               \
    }                                                                  \
    Variable name(Scalar a, const Variable& b) {                       \
        expect_float(b, #name, "b");                                   \
        return apply1<ConstVar>({b}, a);                               \
    }
RENSA_DEFINE_VARIABLE_BINARY(add, Add, AddConstant, AddConstant)
RENSA_DEFINE_VARIABLE_BINARY(sub, Sub, SubConstant, SubFromConstant)
RENSA_DEFINE_VARIABLE_BINARY(mul, Mul, MulConstant, MulConstant)
RENSA_DEFINE_VARIABLE_BINARY(div, Div, DivByConstant, DivFromConstant)
RENSA_DEFINE_VARIABLE_BINARY(pow, Pow, PowByConstant, PowFromConstant)
#undef RENSA_DEFINE_VARIABLE_BINARY

}  // namespace rensa
