#pragma once
// Shared checks of the concrete optimizers (tests/optimizers/test_<name>.cc): a few steps
// on a fixed quadratic loss against an update computed by hand in double, and a save /
// load round trip (NPZ) after which the continued updates are identical.
//
// The loss is 0.5 * sum(c * (w - target)^2) over one parameter w of kSize elements, so
// the grad is c * (w - target), set directly on the parameter.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/array.h"
#include "links/link.h"
#include "optimizers/optimizer.h"
#include "serializers/npz.h"
#include "tests/testing/testing.h"

namespace rensa::testing {

inline const std::vector<double> kW0 = {1.5, -2.0, 0.5, 3.0, -0.25};
inline const std::vector<double> kCurvature = {1.0, 2.0, 0.5, 4.0, 3.0};
inline const std::vector<double> kTarget = {0.5, 1.0, -1.0, 2.0, 0.0};

// A link with the one parameter "w".
class QuadraticParam : public links::Link {
public:
    links::Parameter w;
    explicit QuadraticParam(Dtype dtype = Dtype::kFloat32, const std::vector<double>& init = kW0) {
        register_param("w", &QuadraticParam::w,
                       links::Parameter(Array::from_vector(init, {static_cast<int64_t>(init.size())}).astype(dtype)));
    }
};

inline std::vector<double> quadratic_grad(const std::vector<double>& w) {
    std::vector<double> g(w.size());
    for (size_t i = 0; i < w.size(); ++i) g[i] = kCurvature[i] * (w[i] - kTarget[i]);
    return g;
}

// Sets the grad of the quadratic at the current w.
inline void set_quadratic_grad(QuadraticParam& link) {
    const std::vector<double> g = quadratic_grad(to_doubles(link.w.array()));
    link.w.set_grad(Array::from_vector(g, link.w.array().shape()).astype(link.w.dtype()));
}

// One hand-computed step of the rule on every element: updates w (and the reference's own
// state) from g at step t (1 for the first update).
using ReferenceStep = std::function<void(std::vector<double>& w, const std::vector<double>& g, int64_t t)>;

// `steps` updates of `optimizer` on the quadratic, w checked after each against `reference`
// run in double from the same start (tolerance: that of dtype unless given).
inline void check_quadratic_steps(optimizers::GradientMethod& optimizer, const ReferenceStep& reference,
                                  Dtype dtype = Dtype::kFloat64, int steps = 4,
                                  std::optional<Tolerance> tol = std::nullopt) {
    auto link = std::make_shared<QuadraticParam>(dtype);
    optimizer.setup(link);
    std::vector<double> w = kW0;
    for (int64_t t = 1; t <= steps; ++t) {
        INFO(dtype_name(dtype) << " step " << t);
        set_quadratic_grad(*link);
        optimizer.update();
        reference(w, quadratic_grad(w), t);
        check_allclose(link->w.array(), w, {static_cast<int64_t>(w.size())}, tol.value_or(tolerance(dtype)));
        CHECK(optimizer.t == t);
    }
}

// The state keys of the rule of the optimizer's parameter w after one update.
inline std::set<std::string> state_keys_after_update(optimizers::GradientMethod& optimizer) {
    auto link = std::make_shared<QuadraticParam>();
    optimizer.setup(link);
    set_quadratic_grad(*link);
    optimizer.update();
    std::set<std::string> keys;
    for (const auto& entry : dynamic_cast<optimizers::UpdateRule&>(*link->w.update_rule()).state) {
        keys.insert(entry.first);
    }
    return keys;
}

// Runs `before` steps, saves the optimizer to NPZ, loads it into a fresh optimizer (over a
// fresh link holding the same w), and runs `after` more steps on both: the parameters stay
// bit-identical and so do t and every state array.
inline void check_serialization_roundtrip(const std::function<std::unique_ptr<optimizers::GradientMethod>()>& make,
                                          int before = 3, int after = 3) {
    auto link = std::make_shared<QuadraticParam>();
    const auto optimizer = make();
    optimizer->setup(link);
    for (int i = 0; i < before; ++i) {
        set_quadratic_grad(*link);
        optimizer->update();
    }
    const std::string path =
        (std::filesystem::temp_directory_path() / ("rensa_optimizer_" + std::to_string(::getpid()) + ".npz")).string();
    serializers::save_npz(path, *optimizer);

    auto resumed_link = std::make_shared<QuadraticParam>(Dtype::kFloat32, to_doubles(link->w.array()));
    const auto resumed = make();
    resumed->setup(resumed_link);
    serializers::load_npz(path, *resumed);
    std::filesystem::remove(path);
    CHECK(resumed->t == before);

    for (int i = 0; i < after; ++i) {
        set_quadratic_grad(*link);
        optimizer->update();
        set_quadratic_grad(*resumed_link);
        resumed->update();
        CHECK(to_doubles(resumed_link->w.array()) == to_doubles(link->w.array()));
    }
    const auto& state = dynamic_cast<optimizers::UpdateRule&>(*link->w.update_rule()).state;
    const auto& resumed_state = dynamic_cast<optimizers::UpdateRule&>(*resumed_link->w.update_rule()).state;
    REQUIRE(resumed_state.size() == state.size());
    for (const auto& [key, value] : state) {
        INFO("state " << key);
        CHECK(to_doubles(resumed_state.at(key)) == to_doubles(value));
    }
}

}  // namespace rensa::testing
