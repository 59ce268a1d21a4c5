// L::StatelessMGU, L::StatefulMGU, L::StatefulPeepholeLSTM and L::StatefulZoneoutLSTM:
// Chainer's parameter names and shapes, steps against the formula on the link's own Linear
// children, state handling, gradients through two steps, zoneout in and out of training, NPZ.

#include <catch2/catch.hpp>

#include "autograd/basic_math.h"
#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/connection.h"
#include "links/connection/mgu.h"
#include "links/connection/peephole.h"
#include "links/connection/zoneout_lstm.h"
#include "serializers/npz.h"
#include "tests/links/rnn/rnn_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Variable lin(const L::Linear& l, const Variable& x) { return F::linear(x, l.W, l.b); }

Variable mgu_step(const L::MGUBase& m, const Variable& h, const Variable& x) {
    const Variable f = F::sigmoid(lin(*m.W_f, F::concat({h, x})));
    const Variable h_bar = F::tanh(lin(*m.W_h, F::concat({f * h, x})));
    return f * h_bar + (1.0 - f) * h;
}

// Gates of an LSTM input (batch, 4 * units) cut as Chainer's links: column 4 u + k is gate k of unit u.
std::vector<Variable> gates(const Variable& v) {
    const int64_t b = v.shape()[0], u = v.shape()[1] / 4;
    std::vector<Variable> out;
    for (int64_t k = 0; k < 4; ++k) {
        out.push_back(reshape(F::get_item(reshape(v, {b, u, 4}), {Slice{}, Slice{}, k}), {b, u}));
    }
    return out;
}

}  // namespace

TEST_CASE("MGU: parameter names as in Chainer, steps match the formula", "[links][rnn]") {
    L::StatefulMGU mgu(3, 2);
    const std::vector<std::pair<std::string, Shape>> expected{
        {"/W_f/W", {2, 5}}, {"/W_f/b", {2}}, {"/W_h/W", {2, 5}}, {"/W_h/b", {2}}};
    CHECK(param_table(mgu) == expected);
    const Variable x1(randn({4, 3})), x2(randn({4, 3}));
    const Variable h0(ops::zeros({4, 2}));
    const Variable h1 = mgu_step(mgu, h0, x1);
    check_allclose(mgu(x1).array(), h1.array());
    check_allclose(mgu(x2).array(), mgu_step(mgu, h1, x2).array());
    mgu.reset_state();
    check_allclose(mgu(x1).array(), h1.array());
    const Variable h(randn({4, 2}));
    mgu.set_state(h);
    check_allclose(mgu(x2).array(), mgu_step(mgu, h, x2).array());
    CHECK_THROWS_AS(L::StatefulMGU(0, 2), ValueError);

    auto stateless = std::make_shared<L::StatelessMGU>(3, 2);
    check_allclose((*stateless)(h, x1).array(), mgu_step(*stateless, h, x1).array());
    CHECK_THROWS_AS((*stateless)(x1), NotImplementedError);
    to_float64(*stateless);
    const auto f = [stateless](const std::vector<Variable>& xs) { return stateless->forward(xs[0], xs[1]); };
    check_link_backward(f, {randn({2, 2}, Dtype::kFloat64), randn({2, 3}, Dtype::kFloat64)}, stateless->params(),
                        randn({2, 2}, Dtype::kFloat64));
}

TEST_CASE("StatefulPeepholeLSTM: Chainer's names, steps, gradients, NPZ", "[links][rnn]") {
    auto lstm = std::make_shared<L::StatefulPeepholeLSTM>(3, 2);
    const std::vector<std::pair<std::string, Shape>> expected{{"/upward/W", {8, 3}},  {"/upward/b", {8}},
                                                              {"/lateral/W", {8, 2}}, {"/peep_i/W", {2, 2}},
                                                              {"/peep_f/W", {2, 2}},  {"/peep_o/W", {2, 2}}};
    CHECK(param_table(*lstm) == expected);
    const Variable x1(randn({4, 3})), x2(randn({4, 3}));
    Variable c(ops::zeros({4, 2})), h;
    for (const Variable& x : {x1, x2}) {
        Variable in = lin(*lstm->upward, x);
        if (h.defined()) in = in + lin(*lstm->lateral, h);
        const std::vector<Variable> g = gates(in);
        const Variable i = F::sigmoid(g[1] + lin(*lstm->peep_i, c)), f = F::sigmoid(g[2] + lin(*lstm->peep_f, c));
        c = F::tanh(g[0]) * i + f * c;
        h = F::sigmoid(g[3] + lin(*lstm->peep_o, c)) * F::tanh(c);
        check_allclose((*lstm)(x).array(), h.array());
        check_allclose(lstm->c.array(), c.array());
    }
    lstm->reset_state();
    CHECK_FALSE(lstm->h.defined());
    to_float64(*lstm);
    const auto f = [lstm](const std::vector<Variable>& xs) {
        lstm->reset_state();
        const Variable y1 = (*lstm)(xs[0]);
        return joined({y1, (*lstm)(xs[1])});
    };
    check_link_backward(f, {randn({2, 3}, Dtype::kFloat64), randn({2, 3}, Dtype::kFloat64)}, lstm->params(),
                        randn({8}, Dtype::kFloat64));
    L::StatefulPeepholeLSTM loaded(3, 2);
    const std::vector<std::string> keys = npz_round_trip(*lstm, loaded);
    CHECK(keys == std::vector<std::string>{"lateral/W", "peep_f/W", "peep_i/W", "peep_o/W", "upward/W", "upward/b"});
    check_allclose(loaded.peep_o->W.array(), lstm->peep_o->W.array(), {0, 0});
}

TEST_CASE("StatefulZoneoutLSTM: test mode is the plain LSTM, training keeps old state elements", "[links][rnn]") {
    L::StatefulZoneoutLSTM lstm(3, 2, 0.3, 0.6);
    const std::vector<std::pair<std::string, Shape>> expected{
        {"/upward/W", {8, 3}}, {"/upward/b", {8}}, {"/lateral/W", {8, 2}}};
    CHECK(param_table(lstm) == expected);
    const Variable x1(randn({4, 3})), x2(randn({4, 3}));
    {
        ConfigScope test{&Config::train, false};
        Variable c(ops::zeros({4, 2})), h;
        for (const Variable& x : {x1, x2}) {
            Variable in = lin(*lstm.upward, x);
            if (h.defined()) in = in + lin(*lstm.lateral, h);
            const std::vector<Variable> g = gates(in);
            c = F::tanh(g[0]) * F::sigmoid(g[1]) + F::sigmoid(g[2]) * c;
            h = F::sigmoid(g[3]) * F::tanh(c);
            check_allclose(lstm(x).array(), h.array());
            check_allclose(lstm.c.array(), c.array());
        }
    }
    // Training: every element of the new state is the old one or the LSTM's.
    const Variable c_prev = lstm.c, h_prev = lstm.h;
    const Variable in = lin(*lstm.upward, x1) + lin(*lstm.lateral, h_prev);
    const std::vector<Variable> g = gates(in);
    const Variable c_new = F::tanh(g[0]) * F::sigmoid(g[1]) + F::sigmoid(g[2]) * c_prev;
    const Variable h_new = F::sigmoid(g[3]) * F::tanh(c_new);
    lstm(x1);
    const auto one_of = [](const Array& got, const Variable& a, const Variable& b) {
        const std::vector<double> v = to_doubles(got), va = to_doubles(a.array()), vb = to_doubles(b.array());
        for (size_t k = 0; k < v.size(); ++k) CHECK((v[k] == Approx(va[k]) || v[k] == Approx(vb[k])));
    };
    one_of(lstm.c.array(), c_prev, c_new);
    one_of(lstm.h.array(), h_prev, h_new);
    CHECK_THROWS_AS(L::StatefulZoneoutLSTM(3, 2, 1.5), ValueError);
    CHECK_THROWS_AS(lstm.set_state(Variable(), h_prev), ValueError);
    L::StatefulZoneoutLSTM loaded(3, 2);
    CHECK(npz_round_trip(lstm, loaded) == std::vector<std::string>{"lateral/W", "upward/W", "upward/b"});
}
