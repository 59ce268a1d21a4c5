// Every optimizer trains a 2-layer MLP (L::Linear 2 -> 32, ReLU, L::Linear 32 -> 2) on a
// fixed synthetic problem, full batch, to a stated softmax cross-entropy loss.
//
// The problem: 256 points drawn uniformly from [-1, 1]^2 (rensa::seed(0)), keeping those at
// least 0.1 away from both axes; the class is 1 when x0 * x1 > 0 (XOR of the quadrants, not
// linearly separable). The loss starts near log 2 = 0.69; every optimizer must bring it
// below 0.1 in 100 full-batch updates (AdaDelta, which has no learning rate, in 200).
// Reached when written (Release, CPU): SGD 0.055, MomentumSGD 0.021, NesterovAG 0.022,
// CorrectedMomentumSGD 0.021, AdaGrad 0.015, AdaDelta 0.041, RMSprop 0.011, RMSpropGraves
// 0.034, SMORMS3 0.0032, Adam 0.035, Adam(amsgrad) 0.035, AdamW 0.036, AdaBound 0.041,
// MSVAG 0.047.

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/ops/random.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/loss.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "optimizers/optimizers.h"

namespace {

using namespace rensa;
namespace O = rensa::optimizers;

class MLP : public links::Chain {
public:
    std::shared_ptr<links::Linear> l1, l2;
    MLP() {
        register_link("l1", &MLP::l1, std::make_shared<links::Linear>(2, 32));
        register_link("l2", &MLP::l2, std::make_shared<links::Linear>(32, 2));
    }
    using Link::forward;
    Variable forward(const Variable& x) override { return (*l2)(functions::relu((*l1)(x))); }
};

struct Problem {
    Variable x, t;
};

Problem make_problem() {
    rensa::seed(0);
    const std::vector<float> raw = ops::uniform({256, 2}, -1.0, 1.0).to_vector<float>();
    std::vector<float> xs;
    std::vector<int32_t> ts;
    for (size_t i = 0; i < raw.size(); i += 2) {
        if (std::abs(raw[i]) < 0.1f || std::abs(raw[i + 1]) < 0.1f) continue;
        xs.insert(xs.end(), {raw[i], raw[i + 1]});
        ts.push_back(raw[i] * raw[i + 1] > 0 ? 1 : 0);
    }
    const auto n = static_cast<int64_t>(ts.size());
    return {Variable(Array::from_vector(xs, {n, 2}), false), Variable(Array::from_vector(ts, {n}), false)};
}

struct Case {
    std::string name;
    std::function<std::unique_ptr<O::GradientMethod>()> make;
    int steps;
    double max_loss;  // the loss to reach after `steps` updates
};

const std::vector<Case>& cases() {
    static const std::vector<Case> all{
        {"SGD", [] { return std::make_unique<O::SGD>(O::SGDOptions{.lr = 0.5}); }, 100, 0.1},
        {"MomentumSGD", [] { return std::make_unique<O::MomentumSGD>(O::MomentumSGDOptions{.lr = 0.1}); }, 100, 0.1},
        {"NesterovAG", [] { return std::make_unique<O::NesterovAG>(O::NesterovAGOptions{.lr = 0.1}); }, 100, 0.1},
        {"CorrectedMomentumSGD",
         [] { return std::make_unique<O::CorrectedMomentumSGD>(O::CorrectedMomentumSGDOptions{.lr = 0.1}); }, 100, 0.1},
        {"AdaGrad", [] { return std::make_unique<O::AdaGrad>(O::AdaGradOptions{.lr = 0.1}); }, 100, 0.1},
        {"AdaDelta", [] { return std::make_unique<O::AdaDelta>(); }, 200, 0.1},
        {"RMSprop", [] { return std::make_unique<O::RMSprop>(O::RMSpropOptions{.lr = 0.01}); }, 100, 0.1},
        {"RMSpropGraves", [] { return std::make_unique<O::RMSpropGraves>(O::RMSpropGravesOptions{.lr = 1e-3}); }, 100,
         0.1},
        {"SMORMS3", [] { return std::make_unique<O::SMORMS3>(O::SMORMS3Options{.lr = 0.01}); }, 100, 0.1},
        {"Adam", [] { return std::make_unique<O::Adam>(O::AdamOptions{.alpha = 0.01}); }, 100, 0.1},
        {"Adam(amsgrad)", [] { return std::make_unique<O::Adam>(O::AdamOptions{.alpha = 0.01, .amsgrad = true}); }, 100,
         0.1},
        {"AdamW", [] { return std::make_unique<O::AdamW>(O::AdamWOptions{.alpha = 0.01, .weight_decay_rate = 1e-4}); },
         100, 0.1},
        {"AdaBound", [] { return std::make_unique<O::AdaBound>(O::AdaBoundOptions{.alpha = 0.01}); }, 100, 0.1},
        {"MSVAG", [] { return std::make_unique<O::MSVAG>(O::MSVAGOptions{.lr = 0.5}); }, 100, 0.1},
    };
    return all;
}

double train(const Case& c, const Problem& problem) {
    rensa::seed(1);  // the same initial weights for every optimizer
    auto model = std::make_shared<MLP>();
    std::unique_ptr<O::GradientMethod> optimizer = c.make();
    optimizer->setup(model);
    auto lossfun = [&] { return functions::softmax_cross_entropy((*model)(problem.x), problem.t); };
    const double initial = lossfun().item<double>();
    CHECK(initial > 0.6);
    for (int i = 0; i < c.steps; ++i) optimizer->update(lossfun);
    return lossfun().item<double>();
}

TEST_CASE("optimizers: every optimizer trains a 2-layer MLP", "[optimizers]") {
    const Problem problem = make_problem();
    for (const Case& c : cases()) {
        DYNAMIC_SECTION(c.name) {
            const double loss = train(c, problem);
            INFO(c.name << ": loss " << loss << " after " << c.steps << " steps");
            CHECK(loss < c.max_loss);
        }
    }
}

}  // namespace
