// forget: a node whose forward runs a function without a graph and whose backward runs it
// again with one (Chainer's Forget), trading compute for the memory of intermediate results.

#include <memory>
#include <string>
#include <vector>

#include "autograd/function_node.h"
#include "autograd/grad.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "functions/util.h"

namespace rensa::functions {
namespace {

// func(xs), checked: at least one output, each defined.
std::vector<Variable> call_checked(const ForgetFunction& func, const std::vector<Variable>& xs) {
    std::vector<Variable> outs = func(xs);
    RENSA_CHECK(!outs.empty(), ValueError, "forget: Expect: func to return at least one Variable, Actual: none");
    for (size_t k = 0; k < outs.size(); ++k) {
        RENSA_CHECK(outs[k].defined(), ValueError, "forget: Expect: func to return defined Variables, Actual: output ",
                    k, " is undefined");
    }
    return outs;
}

class Forget : public FunctionNode {
public:
    explicit Forget(ForgetFunction func) : func_{std::move(func)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        Indexes all;
        for (size_t k = 0; k < xs.size(); ++k) all.push_back(static_cast<int>(k));
        retain_inputs(all);
        NoBackpropMode no_graph;
        std::vector<Variable> inputs;
        for (const Array& x : xs) inputs.emplace_back(x, false);
        std::vector<Array> ys;
        for (const Variable& y : call_checked(func_, inputs)) ys.push_back(y.array());
        return ys;
    }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& gys) override {
        RENSA_CHECK(!is_backprop_enabled(), NotImplementedError,
                    "forget: double backpropagation through forget is not allowed");
        // Fresh leaves on the retained data: the recomputed graph stops there.
        std::vector<Variable> leaves;
        for (size_t k = 0; k < inputs().size(); ++k) leaves.emplace_back(retained_input(int(k)).array(), true);
        std::vector<Variable> outs, seeds;
        {
            ForceBackpropMode graph;
            const std::vector<Variable> ys = call_checked(func_, leaves);
            RENSA_CHECK(ys.size() == gys.size(), ValueError, "forget: Expect: func to return ", gys.size(),
                        " outputs again, Actual: ", ys.size());
            for (size_t k = 0; k < ys.size(); ++k) {
                if (!gys[k].defined()) continue;
                outs.push_back(ys[k]);
                seeds.push_back(gys[k]);
            }
        }
        std::vector<Variable> targets;
        for (const int i : indexes) targets.push_back(leaves[size_t(i)]);
        if (outs.empty()) return std::vector<Variable>(indexes.size());
        return grad(outs, targets, seeds);
    }
    std::string label() const override { return "Forget"; }

private:
    ForgetFunction func_;
};

}  // namespace

std::vector<Variable> forget(const ForgetFunction& func, const std::vector<Variable>& xs) {
    RENSA_CHECK(static_cast<bool>(func), ValueError, "forget: Expect: func to be callable, Actual: empty function");
    return std::make_shared<Forget>(func)->apply(xs);
}

}  // namespace rensa::functions
