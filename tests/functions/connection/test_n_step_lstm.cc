// n_step_lstm / n_step_bilstm against a float64 loop reference, gradients on tiny sizes,
// dropout and argument errors. xs are time steps, as in Chainer.

#include <catch2/catch.hpp>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/functions/connection/n_step_reference.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Vars run_lstm(const NStepSpec& p, const Vars& flat, double dropout_ratio = 0.0) {
    const NStepArgsOf<Variable> a = unpack_n_step(p, flat);
    const F::NStepLSTMResult r = p.bi ? F::n_step_bilstm(p.n_layers, dropout_ratio, a.hx, a.cx, a.ws, a.bs, a.xs)
                                      : F::n_step_lstm(p.n_layers, dropout_ratio, a.hx, a.cx, a.ws, a.bs, a.xs);
    Vars result{r.hy, r.cy};
    result.insert(result.end(), r.ys.begin(), r.ys.end());
    return result;
}

void check_lstm(const NStepSpec& p, bool double_backward) {
    check_function({
        .name = p.bi ? "n_step_bilstm" : "n_step_lstm",
        .inputs = n_step_inputs(p),
        .func = [p](const Vars& xs) { return run_lstm(p, xs); },
        .reference = [p](const Arrays& xs) { return n_step_reference(p, xs); },
        .dtypes = {Dtype::kFloat32, Dtype::kFloat64},
        .layouts = {Layout::kContiguous, Layout::kStrided},
        .double_backward = double_backward,
    });
}

Vars zero_inputs(const NStepSpec& p) {
    Vars flat;
    for (const InputSpec& s : n_step_inputs(p)) flat.emplace_back(ops::full(s.shape, 0.1, Dtype::kFloat32));
    return flat;
}

}  // namespace

TEST_CASE("n_step_lstm", "[functions][connection]") {
    check_lstm({.kind = "lstm", .n_layers = 2}, false);
    check_lstm({.kind = "lstm", .n_layers = 1, .lengths = {2, 1}}, true);
}

TEST_CASE("n_step_bilstm", "[functions][connection]") {
    check_lstm({.kind = "lstm", .n_layers = 2, .bi = true}, false);
    check_lstm({.kind = "lstm", .n_layers = 1, .bi = true, .lengths = {3, 1}}, false);
}

TEST_CASE("n_step_lstm: dropout only between layers and only in training", "[functions][connection]") {
    const NStepSpec one{.kind = "lstm", .n_layers = 1}, two{.kind = "lstm", .n_layers = 2};
    const auto same = [](const Vars& a, const Vars& b) {
        for (size_t i = 0; i < a.size(); ++i) {
            if (a[i].array().to_vector<float>() != b[i].array().to_vector<float>()) return false;
        }
        return true;
    };
    const Vars in1 = zero_inputs(one), in2 = zero_inputs(two);
    CHECK(same(run_lstm(one, in1, 0.9), run_lstm(one, in1, 0.0)));  // layer 0's input is never dropped
    CHECK_FALSE(same(run_lstm(two, in2, 0.9), run_lstm(two, in2, 0.0)));
    ConfigScope test_mode{&Config::train, false};
    CHECK(same(run_lstm(two, in2, 0.9), run_lstm(two, in2, 0.0)));
}

TEST_CASE("n_step_lstm: errors", "[functions][connection]") {
    const NStepSpec p{.kind = "lstm"};
    const NStepArgsOf<Variable> a = unpack_n_step(p, zero_inputs(p));
    CHECK_THROWS_AS(F::n_step_lstm(1, 0.0, a.hx, Variable(), a.ws, a.bs, a.xs), ValueError);
    CHECK_THROWS_WITH(F::n_step_lstm(1, 0.0, a.hx, Variable(ops::zeros({1, 2, 2})), a.ws, a.bs, a.xs),
                      Catch::Contains("cx.shape == hx.shape"));
    CHECK_THROWS_AS(F::n_step_bilstm(1, 0.0, a.hx, a.cx, a.ws, a.bs, a.xs), DimensionError);
    CHECK_THROWS_AS(F::n_step_lstm(0, 0.0, a.hx, a.cx, a.ws, a.bs, a.xs), ValueError);
}
