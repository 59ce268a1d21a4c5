// cast and copy: the gradient goes back through the inverse conversion.

#include <memory>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "functions/array.h"

namespace rensa::functions {
namespace {

class Cast : public FunctionNode {
public:
    explicit Cast(Dtype dtype) : dtype_{dtype} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {xs[0].astype(dtype_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        if (!is_float(input_dtype(0))) return {Variable()};  // no gradient for integer inputs
        return {cast(gys[0], input_dtype(0))};
    }
    std::string label() const override { return "Cast"; }

private:
    Dtype dtype_;
};

class Copy : public FunctionNode {
public:
    explicit Copy(Device dst) : dst_{dst} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        const Array y = xs[0].to_device(dst_);
        return {y.storage() == xs[0].storage() ? y.copy() : y};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {copy(gys[0], inputs()[0]->device())};
    }
    std::string label() const override { return "Copy"; }

private:
    Device dst_;
};

}  // namespace

Variable cast(const Variable& x, Dtype dtype) {
    expect_defined(x, "cast", "x");
    if (x.dtype() == dtype) return x;
    return std::make_shared<Cast>(dtype)->apply({x})[0];
}

Variable copy(const Variable& x, Device dst) {
    expect_defined(x, "copy", "x");
    return std::make_shared<Copy>(dst)->apply({x})[0];
}

}  // namespace rensa::functions
