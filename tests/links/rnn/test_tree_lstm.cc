// L::ChildSumTreeLSTM and L::NaryTreeLSTM: Chainer's parameter names, outputs against the
// cell formula on the link's own Linear children (with missing children as zeros and x
// missing), gradients, NPZ keys.

#include <catch2/catch.hpp>

#include "autograd/basic_math.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "links/connection/tree_lstm.h"
#include "tests/links/rnn/rnn_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Variable lin(const L::Linear& l, const Variable& x) { return F::linear(x, l.W, l.b); }
Variable cols(const Variable& v, int64_t from, int64_t to) { return F::get_item(v, {Slice{}, Slice{from, to}}); }

// The child-sum cell written out: per-child forget gates, summed h for a, i, o.
std::pair<Variable, Variable> child_sum_ref(const L::ChildSumTreeLSTM& l, const std::vector<Variable>& cs,
                                            const std::vector<Variable>& hs, const Variable& x) {
    const int64_t u = l.state_size();
    const Variable wx = lin(*l.W_x, x);
    Variable h_sum = hs[0];
    for (size_t k = 1; k < hs.size(); ++k) h_sum = h_sum + hs[k];
    const Variable aio = lin(*l.W_h_aio, h_sum) + cols(wx, 0, 3 * u);
    Variable c = F::tanh(cols(aio, 0, u)) * F::sigmoid(cols(aio, u, 2 * u));
    for (size_t k = 0; k < hs.size(); ++k) c = c + F::sigmoid(lin(*l.W_h_f, hs[k]) + cols(wx, 3 * u, 4 * u)) * cs[k];
    return {c, F::sigmoid(cols(aio, 2 * u, 3 * u)) * F::tanh(c)};
}

}  // namespace

TEST_CASE("ChildSumTreeLSTM: Chainer's names, cells of 0, 1 and 3 children", "[links][rnn]") {
    auto l = std::make_shared<L::ChildSumTreeLSTM>(3, 2);
    const std::vector<std::pair<std::string, Shape>> expected{
        {"/W_x/W", {8, 3}}, {"/W_x/b", {8}}, {"/W_h_aio/W", {6, 2}}, {"/W_h_f/W", {2, 2}}};
    CHECK(param_table(*l) == expected);
    const Variable x(randn({4, 3}));
    std::vector<Variable> cs, hs;
    for (int k = 0; k < 3; ++k) {
        cs.emplace_back(randn({4, 2}));
        hs.emplace_back(randn({4, 2}));
    }
    for (const size_t n : {1, 3}) {
        const std::vector<Variable> c(cs.begin(), cs.begin() + long(n)), h(hs.begin(), hs.begin() + long(n));
        const auto [yc, yh] = l->forward(c, h, x);
        const auto [rc, rh] = child_sum_ref(*l, c, h, x);
        check_allclose(yc.array(), rc.array());
        check_allclose(yh.array(), rh.array());
    }
    // No children: c = sigmoid(i) tanh(a), h = sigmoid(o) tanh(c), from x alone.
    const auto [c0, h0] = l->forward({}, {}, x);
    const Variable wx = lin(*l->W_x, x);
    const Variable c_ref = F::sigmoid(cols(wx, 2, 4)) * F::tanh(cols(wx, 0, 2));
    check_allclose(c0.array(), c_ref.array());
    check_allclose(h0.array(), (F::sigmoid(cols(wx, 4, 6)) * F::tanh(c_ref)).array());
    // Undefined children are zeros; an undefined x is zeros of (batch, in_size).
    const Variable z(ops::zeros({4, 2}));
    const auto [cz, hz] = l->forward({cs[0], Variable()}, {Variable(), hs[1]}, Variable());
    const auto [rcz, rhz] = child_sum_ref(*l, {cs[0], z}, {z, hs[1]}, Variable(ops::zeros({4, 3})));
    check_allclose(cz.array(), rcz.array());
    check_allclose(hz.array(), rhz.array());
    CHECK_THROWS_WITH(l->forward({Variable()}, {Variable()}, Variable()),
                      Catch::Contains("All inputs (cs, hs, x) are None"));
    CHECK_THROWS_AS(l->forward({cs[0]}, {}, x), ValueError);

    to_float64(*l);
    const auto f = [l](const std::vector<Variable>& xs) {
        const auto [c, h] = l->forward({xs[0], xs[1]}, {xs[2], xs[3]}, xs[4]);
        return joined({c, h});
    };
    std::vector<Array> inputs;
    for (int k = 0; k < 4; ++k) inputs.push_back(randn({2, 2}, Dtype::kFloat64));
    inputs.push_back(randn({2, 3}, Dtype::kFloat64));
    check_link_backward(f, inputs, l->params(), randn({8}, Dtype::kFloat64));
    L::ChildSumTreeLSTM loaded(3, 2);
    CHECK(npz_round_trip(*l, loaded) == std::vector<std::string>{"W_h_aio/W", "W_h_f/W", "W_x/W", "W_x/b"});
}

TEST_CASE("NaryTreeLSTM: Chainer's names, the cell with skipped children", "[links][rnn]") {
    auto l = std::make_shared<L::NaryTreeLSTM>(3, 2, 3);
    const std::vector<std::pair<std::string, Shape>> expected{
        {"/W_x/W", {12, 3}}, {"/W_x/b", {12}}, {"/W_h1/W", {12, 2}}, {"/W_h2/W", {12, 2}}, {"/W_h3/W", {12, 2}}};
    CHECK(param_table(*l) == expected);
    const Variable x(randn({4, 3}));
    const std::vector<Variable> cs{Variable(randn({4, 2})), Variable(), Variable(randn({4, 2}))};
    const std::vector<Variable> hs{Variable(randn({4, 2})), Variable(randn({4, 2})), Variable()};
    const auto [c, h] = l->forward(cs, hs, x);
    const Variable in = lin(*l->W_x, x) + lin(l->W_h(1), hs[0]) + lin(l->W_h(2), hs[1]);
    const Variable z(ops::zeros({4, 2}));
    const auto [rc, rh] = F::tree_lstm({cs[0], z, cs[2]}, in);
    check_allclose(c.array(), rc.array());
    check_allclose(h.array(), rh.array());
    CHECK_THROWS_AS(l->forward({cs[0]}, {hs[0]}, x), ValueError);
    CHECK_THROWS_AS(l->W_h(4), IndexError);
    CHECK_THROWS_AS(L::NaryTreeLSTM(3, 2, 0), ValueError);

    to_float64(*l);
    const auto f = [l](const std::vector<Variable>& xs) {
        const auto [c, h] = l->forward({xs[0], xs[1], xs[2]}, {xs[3], xs[4], xs[5]}, xs[6]);
        return joined({c, h});
    };
    std::vector<Array> inputs;
    for (int k = 0; k < 6; ++k) inputs.push_back(randn({2, 2}, Dtype::kFloat64));
    inputs.push_back(randn({2, 3}, Dtype::kFloat64));
    check_link_backward(f, inputs, l->params(), randn({8}, Dtype::kFloat64));
    L::NaryTreeLSTM loaded(3, 2, 3);
    CHECK(npz_round_trip(*l, loaded) == std::vector<std::string>{"W_h1/W", "W_h2/W", "W_h3/W", "W_x/W", "W_x/b"});
}
