// mixed_bf16 and the optimizers: float32 master weights made automatically under the mixed
// config (Note [Automatic fp32 update]), the bfloat16 parameter equal to the rounded master
// after each update, small updates that bfloat16 alone loses accumulating in the master, and
// an NPZ round trip of the model and the optimizer that continues exactly
// (Note [Float32 master weights]).

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/loss.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "optimizers/adam.h"
#include "optimizers/sgd.h"
#include "serializers/npz.h"
#include "tests/testing/mixed_bf16.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

optimizers::UpdateRule& rule_of(const links::Parameter& param) {
    auto* rule = dynamic_cast<optimizers::UpdateRule*>(param.update_rule());
    REQUIRE(rule != nullptr);
    return *rule;
}

// The rule's float32 master as its serialization stores it ("fp32_param"), undefined when
// it stores none.
Array master_of(const links::Parameter& param) {
    auto recorder = std::make_shared<SaveRecorder>();
    rule_of(param).serialize(serializers::Serializer{recorder});
    const auto it = recorder->saved.find("fp32_param");
    return it == recorder->saved.end() ? Array() : it->second;
}

std::shared_ptr<L::Linear> make_linear() {
    MixedBF16Scope scope;
    seed(21);
    return std::make_shared<L::Linear>(6, 4);
}

// One training step on a fixed batch (float32 input, cast by the link; bfloat16 target).
void train_step(L::Linear& link, optimizers::Optimizer& optimizer, int64_t step) {
    MixedBF16Scope scope;
    seed(100 + static_cast<uint64_t>(step));
    const Array x = ops::uniform({5, 6}, -1, 1);
    const Array t = ops::uniform({5, 4}, -1, 1).astype(Dtype::kBFloat16);
    link.cleargrads();
    F::mean_squared_error(link.forward(Variable(x, false)), Variable(t, false)).backward();
    optimizer.update();
}

// The parameter is its master rounded to bfloat16, bit for bit.
void check_param_is_rounded_master(const links::Parameter& param) {
    const Array master = master_of(param);
    REQUIRE(master.defined());
    CHECK(master.dtype() == Dtype::kFloat32);
    CHECK(param.dtype() == Dtype::kBFloat16);
    CHECK(to_doubles(param.array()) == to_doubles(master.astype(Dtype::kBFloat16)));
}

std::string temp_path(const std::string& name) { return (std::filesystem::temp_directory_path() / name).string(); }

}  // namespace

TEST_CASE("mixed_bf16: an optimizer set up under the mixed config keeps float32 masters", "[optimizers][mixed]") {
    auto link = make_linear();
    optimizers::Adam optimizer;
    {
        MixedBF16Scope scope;
        optimizer.setup(link);
    }
    CHECK(rule_of(link->W).use_fp32_update);
    for (int64_t step = 0; step < 3; ++step) {
        train_step(*link, optimizer, step);
        check_param_is_rounded_master(link->W);
        check_param_is_rounded_master(link->b);
    }
    CHECK(rule_of(link->W).state.at("m").dtype() == Dtype::kFloat32);
}

TEST_CASE("mixed_bf16: use_fp32_update(false) after setup keeps Chainer's behaviour", "[optimizers][mixed]") {
    auto link = make_linear();
    optimizers::SGD optimizer;
    {
        MixedBF16Scope scope;
        optimizer.setup(link);
    }
    CHECK(rule_of(link->W).use_fp32_update);
    optimizer.use_fp32_update(false);
    CHECK_FALSE(rule_of(link->W).use_fp32_update);
    CHECK_FALSE(rule_of(link->b).use_fp32_update);
    train_step(*link, optimizer, 0);
    CHECK_FALSE(master_of(link->W).defined());
    // Outside the mixed config nothing changes unless asked.
    optimizers::SGD plain;
    plain.setup(make_linear());
    CHECK_FALSE(rule_of(plain.target().params()[0]).use_fp32_update);
}

TEST_CASE("mixed_bf16: use_fp32_update(false) before setup wins over the mixed config", "[optimizers][mixed]") {
    auto link = make_linear();
    optimizers::SGD optimizer;
    optimizer.use_fp32_update(false);
    {
        MixedBF16Scope scope;
        optimizer.setup(link);
    }
    CHECK_FALSE(rule_of(link->W).use_fp32_update);
    CHECK_FALSE(rule_of(link->b).use_fp32_update);
}

TEST_CASE("mixed_bf16: updates below bfloat16's ulp accumulate in the master", "[optimizers][mixed]") {
    // w = 1: bfloat16's spacing there is 2^-7, so a step of lr * grad = 1e-3 rounds away.
    for (const bool fp32 : {true, false}) {
        INFO("use_fp32_update = " << fp32);
        auto link = std::make_shared<links::Chain>();
        link->add_param("w", links::Parameter(ops::ones({3}, Dtype::kBFloat16), "w"));
        optimizers::SGD optimizer({.lr = 1e-3});
        {
            MixedBF16Scope scope;
            optimizer.setup(link);
        }
        optimizer.use_fp32_update(fp32);
        const links::Parameter w = link->params()[0];
        for (int i = 0; i < 100; ++i) {
            w.set_grad(ops::ones({3}, Dtype::kBFloat16));
            optimizer.update();
        }
        if (fp32) {
            // 1 - 100 * 1e-3 = 0.9 in float32, and the parameter is its rounding (0.8984375).
            CHECK(to_doubles(master_of(w))[0] == Approx(0.9).epsilon(1e-5));
            CHECK(to_doubles(w.array())[0] == 0.8984375);
        } else {
            CHECK(to_doubles(w.array())[0] == 1.0);
        }
    }
}

TEST_CASE("mixed_bf16: NPZ round trip of the model and the optimizer continues exactly", "[optimizers][mixed]") {
    auto link = make_linear();
    optimizers::Adam optimizer;
    {
        MixedBF16Scope scope;
        optimizer.setup(link);
    }
    for (int64_t step = 0; step < 3; ++step) train_step(*link, optimizer, step);
    const std::string model_path = temp_path("rensa_mixed_bf16_model.npz");
    const std::string opt_path = temp_path("rensa_mixed_bf16_optimizer.npz");
    serializers::save_npz(model_path, *link);
    serializers::save_npz(opt_path, optimizer);

    auto resumed = make_linear();
    optimizers::Adam resumed_optimizer;
    {
        MixedBF16Scope scope;
        resumed_optimizer.setup(resumed);
    }
    serializers::load_npz(model_path, *resumed);
    serializers::load_npz(opt_path, resumed_optimizer);
    CHECK(resumed->W.dtype() == Dtype::kBFloat16);
    CHECK(to_doubles(resumed->W.array()) == to_doubles(link->W.array()));
    CHECK(to_doubles(resumed->b.array()) == to_doubles(link->b.array()));
    CHECK(to_doubles(master_of(resumed->W)) == to_doubles(master_of(link->W)));
    CHECK(to_doubles(rule_of(resumed->W).state.at("v")) == to_doubles(rule_of(link->W).state.at("v")));
    CHECK(resumed_optimizer.t == optimizer.t);

    train_step(*link, optimizer, 3);
    train_step(*resumed, resumed_optimizer, 3);
    CHECK(to_doubles(resumed->W.array()) == to_doubles(link->W.array()));
    CHECK(to_doubles(master_of(resumed->W)) == to_doubles(master_of(link->W)));
    std::filesystem::remove(model_path);
    std::filesystem::remove(opt_path);
}

TEST_CASE("mixed_bf16: a file without masters and a float32 model file load into a bfloat16 model",
          "[optimizers][mixed]") {
    // An optimizer file without "fp32_param" (Chainer's, or rensa's without fp32 update).
    auto f32_link = std::make_shared<L::Linear>(6, 4);
    optimizers::Adam plain;
    plain.setup(f32_link);
    f32_link->W.set_grad(ops::ones({4, 6}));
    f32_link->b.set_grad(ops::ones({4}));
    plain.update();
    const std::string model_path = temp_path("rensa_mixed_bf16_f32_model.npz");
    const std::string opt_path = temp_path("rensa_mixed_bf16_plain_optimizer.npz");
    serializers::save_npz(model_path, *f32_link);
    serializers::save_npz(opt_path, plain);

    auto link = make_linear();
    optimizers::Adam optimizer;
    {
        MixedBF16Scope scope;
        optimizer.setup(link);
    }
    serializers::load_npz(model_path, *link);  // cast into the existing bfloat16 arrays
    CHECK(link->W.dtype() == Dtype::kBFloat16);
    CHECK(to_doubles(link->W.array()) == to_doubles(f32_link->W.array().astype(Dtype::kBFloat16)));
    serializers::load_npz(opt_path, optimizer);
    CHECK_FALSE(master_of(link->W).defined());
    train_step(*link, optimizer, 0);
    check_param_is_rounded_master(link->W);
    std::filesystem::remove(model_path);
    std::filesystem::remove(opt_path);
}
