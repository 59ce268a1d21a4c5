// n_step_rnn / n_step_birnn / n_step_gru / n_step_bigru against float64 loop references,
// with gradients on tiny sizes, and argument errors. xs are time steps, as in Chainer.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/functions/connection/n_step_reference.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Vars run_n_step(const NStepSpec& p, const Vars& flat) {
    const NStepArgsOf<Variable> a = unpack_n_step(p, flat);
    std::pair<Variable, Vars> out;
    if (p.kind == "gru") {
        out = p.bi ? F::n_step_bigru(p.n_layers, 0.0, a.hx, a.ws, a.bs, a.xs)
                   : F::n_step_gru(p.n_layers, 0.0, a.hx, a.ws, a.bs, a.xs);
    } else {
        out = p.bi ? F::n_step_birnn(p.n_layers, 0.0, a.hx, a.ws, a.bs, a.xs, p.kind)
                   : F::n_step_rnn(p.n_layers, 0.0, a.hx, a.ws, a.bs, a.xs, p.kind);
    }
    Vars result{out.first};
    result.insert(result.end(), out.second.begin(), out.second.end());
    return result;
}

void check_n_step(const NStepSpec& p, bool double_backward) {
    check_function({
        .name = "n_step_" + std::string(p.bi ? "bi " : "") + p.kind,
        .inputs = n_step_inputs(p),
        .func = [p](const Vars& xs) { return run_n_step(p, xs); },
        .reference = [p](const Arrays& xs) { return n_step_reference(p, xs); },
        .dtypes = {Dtype::kFloat32, Dtype::kFloat64},
        .layouts = {Layout::kContiguous, Layout::kStrided},
        .double_backward = double_backward,
    });
}

}  // namespace

TEST_CASE("n_step_rnn", "[functions][connection]") {
    check_n_step({.kind = "tanh", .n_layers = 2}, true);
    check_n_step({.kind = "relu", .n_layers = 1, .lengths = {2, 1}}, false);
    // hx wider than the first step: a sequence of length 0 keeps its state.
    check_n_step({.kind = "tanh", .n_layers = 1, .lengths = {2, 1, 0}}, false);
}

TEST_CASE("n_step_birnn", "[functions][connection]") {
    check_n_step({.kind = "tanh", .n_layers = 2, .bi = true}, false);
}

TEST_CASE("n_step_gru", "[functions][connection]") {
    check_n_step({.kind = "gru", .n_layers = 2}, false);
    check_n_step({.kind = "gru", .n_layers = 1, .lengths = {2, 1}}, true);
}

TEST_CASE("n_step_bigru", "[functions][connection]") { check_n_step({.kind = "gru", .bi = true}, false); }

TEST_CASE("n_step_rnn: errors", "[functions][connection]") {
    const NStepSpec p{.kind = "tanh"};
    Vars flat;
    for (const InputSpec& s : n_step_inputs(p)) flat.emplace_back(ops::zeros(s.shape));
    const NStepArgsOf<Variable> a = unpack_n_step(p, flat);
    CHECK_NOTHROW(F::n_step_rnn(1, 0.0, a.hx, a.ws, a.bs, a.xs));
    CHECK_THROWS_AS(F::n_step_rnn(1, 0.0, a.hx, a.ws, a.bs, a.xs, "sigmoid"), ValueError);
    CHECK_THROWS_WITH(F::n_step_rnn(2, 0.0, a.hx, a.ws, a.bs, a.xs), Catch::Contains("hx.shape[0]"));
    CHECK_NOTHROW(F::n_step_rnn(1, 0.0, a.hx, a.ws, a.bs, {a.xs[0], a.xs[1]}));  // fewer steps
    CHECK_THROWS_AS(F::n_step_rnn(1, 0.0, a.hx, a.ws, a.bs, {}), ValueError);
    CHECK_THROWS_AS(F::n_step_gru(1, 0.0, a.hx, a.ws, a.bs, a.xs), DimensionError);  // 2 matrices, not 6
    // The batch of a step may not grow (sequences sorted by decreasing length, then transposed).
    CHECK_THROWS_WITH(F::n_step_rnn(1, 0.0, a.hx, a.ws, a.bs, {a.xs[2], a.xs[0]}),
                      Catch::Contains("n_step_rnn: Expect: xs[1].shape[0] <= xs[0].shape[0]"));
    CHECK_THROWS_AS(F::n_step_rnn(1, 0.0, a.hx, a.ws, a.bs, {Variable(ops::zeros({3}))}), DimensionError);
    CHECK_THROWS_WITH(F::n_step_rnn(1, 0.0, Variable(ops::zeros({1, 2, 2})), a.ws, a.bs, a.xs),
                      Catch::Contains("hx.shape[1] >= xs[0].shape[0]"));
    CHECK_THROWS_WITH(F::n_step_rnn(1, 0.0, a.hx, a.ws, a.bs, {Variable(ops::zeros({3, 5}))}),
                      Catch::Contains("Inconsistent input size"));
    CHECK_THROWS_WITH(F::n_step_rnn(1, 0.0, Variable(), a.ws, a.bs, a.xs),
                      Catch::Contains("n_step_rnn: Expect: hx to be defined"));
}
