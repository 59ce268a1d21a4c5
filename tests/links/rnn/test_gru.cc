// L::GRU (Chainer 7's stateful GRU), L::StatefulGRU and L::StatelessGRU: parameter layout,
// values against the formula on the link's own Linear children, state, gradients, NPZ.

#include <catch2/catch.hpp>

#include "autograd/basic_math.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "links/connection/gru.h"
#include "links/initializers.h"
#include "serializers/npz.h"
#include "tests/links/rnn/rnn_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Variable lin(const L::Linear& l, const Variable& x) { return F::linear(x, l.W, l.b); }

// Chainer's GRU step; h undefined: the first step of the stateful GRU (z * h_bar).
Variable reference_step(const L::GRUBase& g, const Variable& h, const Variable& x) {
    if (!h.defined()) return F::sigmoid(lin(*g.W_z, x)) * F::tanh(lin(*g.W, x));
    const Variable r = F::sigmoid(lin(*g.W_r, x) + lin(*g.U_r, h));
    const Variable z = F::sigmoid(lin(*g.W_z, x) + lin(*g.U_z, h));
    const Variable h_bar = F::tanh(lin(*g.W, x) + lin(*g.U, r * h));
    return z * h_bar + (1.0 - z) * h;
}

}  // namespace

TEST_CASE("GRU: parameter names and shapes as in Chainer", "[links][rnn]") {
    L::GRU gru(3, 2);
    const std::vector<std::pair<std::string, Shape>> expected{
        {"/W_r/W", {2, 3}}, {"/W_r/b", {2}}, {"/U_r/W", {2, 2}}, {"/U_r/b", {2}}, {"/W_z/W", {2, 3}}, {"/W_z/b", {2}},
        {"/U_z/W", {2, 2}}, {"/U_z/b", {2}}, {"/W/W", {2, 3}},   {"/W/b", {2}},   {"/U/W", {2, 2}},   {"/U/b", {2}}};
    CHECK(param_table(gru) == expected);
    CHECK(gru.state_size() == 2);
    CHECK_THROWS_AS(L::GRU(std::nullopt), ValueError);
    CHECK_THROWS_AS(L::GRU(3, 0), ValueError);
    // Initializers: init on the input side, inner_init on the state side, bias_init everywhere.
    L::GRU custom(3, 2,
                  {.init = initializers::constant(1),
                   .inner_init = initializers::constant(2),
                   .bias_init = initializers::constant(3)});
    check_allclose(custom.W_z->W.array(), std::vector<double>(6, 1.0), {2, 3}, {0, 0});
    check_allclose(custom.U->W.array(), std::vector<double>(4, 2.0), {2, 2}, {0, 0});
    check_allclose(custom.U_r->b.array(), {3, 3}, {2}, {0, 0});
}

TEST_CASE("GRU: stateful steps match the formula, reset_state starts over", "[links][rnn]") {
    L::GRU gru(3, 2);
    const Variable x1(randn({4, 3})), x2(randn({4, 3}));
    const Variable y1 = gru(x1);
    const Variable y2 = gru(x2);
    const Variable h1 = reference_step(gru, {}, x1);
    check_allclose(y1.array(), h1.array());
    check_allclose(y2.array(), reference_step(gru, h1, x2).array());
    CHECK(gru.h == y2);
    gru.reset_state();
    CHECK_FALSE(gru.h.defined());
    check_allclose(gru(x1).array(), h1.array());
    const Variable h(randn({4, 2}));
    gru.set_state(h);
    check_allclose(gru(x2).array(), reference_step(gru, h, x2).array());
}

TEST_CASE("GRU: lazy in_size", "[links][rnn]") {
    L::GRU gru(2);
    CHECK_FALSE(gru.W->W.is_initialized());
    CHECK(gru(Variable(randn({1, 5}))).shape() == Shape{1, 2});
    CHECK(gru.W->W.shape() == Shape{2, 5});
    CHECK(gru.W_z->W.shape() == Shape{2, 5});
    CHECK(gru(Variable(randn({1, 5}))).shape() == Shape{1, 2});
    CHECK(gru.W_r->W.shape() == Shape{2, 5});  // first used at the second step, as in Chainer
}

TEST_CASE("GRU: gradients through two steps", "[links][rnn]") {
    auto gru = std::make_shared<L::GRU>(3, 2);
    to_float64(*gru);
    const auto f = [gru](const std::vector<Variable>& xs) {
        gru->reset_state();
        const Variable y1 = (*gru)(xs[0]);
        return joined({y1, (*gru)(xs[1])});
    };
    const std::vector<Array> xs{randn({2, 3}, Dtype::kFloat64), randn({2, 3}, Dtype::kFloat64)};
    check_link_backward(f, xs, gru->params(), randn({8}, Dtype::kFloat64));
}

TEST_CASE("StatelessGRU: forward(h, x) matches the formula, with gradients", "[links][rnn]") {
    auto gru = std::make_shared<L::StatelessGRU>(3, 2);
    const Variable h(randn({2, 2})), x(randn({2, 3}));
    check_allclose(gru->forward(h, x).array(), reference_step(*gru, h, x).array());
    check_allclose((*gru)(h, x).array(), reference_step(*gru, h, x).array());  // Link's l(h, x)
    CHECK_THROWS_AS((*gru)(x), NotImplementedError);
    to_float64(*gru);
    const auto f = [gru](const std::vector<Variable>& xs) { return gru->forward(xs[0], xs[1]); };
    check_link_backward(f, {randn({2, 2}, Dtype::kFloat64), randn({2, 3}, Dtype::kFloat64)}, gru->params(),
                        randn({2, 2}, Dtype::kFloat64));
}

TEST_CASE("GRU: copy and NPZ round trip", "[links][rnn]") {
    L::GRU gru(3, 2);
    auto copied = std::dynamic_pointer_cast<L::GRU>(gru.copy());
    REQUIRE(copied != nullptr);
    CHECK(copied->U->W.array().raw_data() == gru.U->W.array().raw_data());
    CHECK(copied->U != gru.U);
    const Variable x(randn({2, 3}));
    check_allclose((*copied)(x).array(), gru(x).array());

    TempPath path("gru");
    serializers::save_npz(path.str(), gru);
    L::GRU loaded(3, 2);
    serializers::load_npz(path.str(), loaded);
    const auto saved_params = gru.namedparams(), loaded_params = loaded.namedparams();
    REQUIRE(saved_params.size() == loaded_params.size());
    for (size_t i = 0; i < saved_params.size(); ++i) {
        INFO(saved_params[i].first);
        check_allclose(loaded_params[i].second.array(), saved_params[i].second.array(), {0, 0});
    }
}
