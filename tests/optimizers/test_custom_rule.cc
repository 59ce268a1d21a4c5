// The smallest new optimizer (Note [Fused updates] in optimizers/optimizer.h): a rule written
// only in this file, its formula an UpdateProgram of the generic fused update, trained
// through GradientMethod on the CPU against the same formula computed here in double.
//   v = beta * v + grad; param -= lr * (v + weight_decay * param)   (heavy ball with decay)

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
#include "tests/optimizers/optimizer_check.h"

namespace rensa::testing {
namespace {

// The rule's formula over the registers and scalars of the generic update.
std::shared_ptr<const UpdateProgram> heavy_ball_program() {
    using namespace ops::update_registers;
    const uint8_t v = state(0), t = temp(0), lr = scalar(0), beta = scalar(1), decay = scalar(2);
    static const auto program = ops::make_update_program("heavy_ball", {"v"}, 3,
                                                         {{UpdateOp::kMulAdd, v, beta, v, kGrad},
                                                          {UpdateOp::kMulAdd, t, decay, kParam, v},
                                                          {UpdateOp::kSubMul, kParam, lr, t, kParam}});
    return program;
}

class HeavyBallRule : public optimizers::UpdateRule {
public:
    using UpdateRule::UpdateRule;

protected:
    void init_state(const Array& param) override { state["v"] = ops::zeros_like(param); }
    void update_core(const Array& param, const Array& grad) override {
        const optimizers::Hyperparameter& h = hyperparam();
        ops::fused_update({.program = heavy_ball_program(),
                           .param = param,
                           .grad = grad,
                           .states = {state.at("v")},
                           .scalars = {h.get("lr"), h.get("beta"), h.get("weight_decay")}});
    }
};

class HeavyBall : public optimizers::GradientMethod {
public:
    HeavyBall() {
        hyperparam().set("lr", 0.05);
        hyperparam().set("beta", 0.8);
        hyperparam().set("weight_decay", 0.1);
    }

protected:
    std::shared_ptr<optimizers::UpdateRule> create_update_rule() override {
        return std::make_shared<HeavyBallRule>(hyperparam_ptr());
    }
};

}  // namespace

TEST_CASE("custom rule: a rule defined in a test runs through the fused update", "[optimizers]") {
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kFloat16}) {
        HeavyBall optimizer;
        std::vector<double> v(kW0.size(), 0.0);
        check_quadratic_steps(
            optimizer,
            [&v](std::vector<double>& w, const std::vector<double>& g, int64_t) {
                for (size_t i = 0; i < w.size(); ++i) {
                    v[i] = 0.8 * v[i] + g[i];
                    w[i] -= 0.05 * (v[i] + 0.1 * w[i]);
                }
            },
            dtype, 5);
    }
}

}  // namespace rensa::testing
