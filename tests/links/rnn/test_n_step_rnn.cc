// The NStep* links: Chainer's ChainList layout ("0/w0", "0/b0", ...), values against the
// F::n_step_* functions with the links' own weights (the functions take time steps: the
// references transpose the sequences), unsorted sequences, None states, lazy in_size,
// gradients, copies and NPZ round trips.

#include <catch2/catch.hpp>
#include <numeric>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "functions/connection.h"
#include "links/connection/n_step_rnn.h"
#include "links/initializers.h"
#include "serializers/npz.h"
#include "tests/links/rnn/rnn_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Table = std::vector<std::pair<std::string, Shape>>;

// "/<child>/<prefix><j>" (appended piece by piece: GCC 12 warns -Wrestrict on "a" + std::to_string).
std::string key(int child, char prefix, int j) {
    std::string k("/");
    k += std::to_string(child);
    k += '/';
    k += prefix;
    k += std::to_string(j);
    return k;
}

// The expected namedparams of an n-step link (Chainer's registration order: w0, b0, w1, ...).
Table expected_table(int n_layers, int directions, int n_weights, int64_t in, int64_t out) {
    Table t;
    for (int layer = 0; layer < n_layers; ++layer) {
        for (int d = 0; d < directions; ++d) {
            for (int j = 0; j < n_weights; ++j) {
                const int64_t w_in = j >= n_weights / 2 ? out : layer == 0 ? in : out * directions;
                t.emplace_back(key(layer * directions + d, 'w', j), Shape{out, w_in});
                t.emplace_back(key(layer * directions + d, 'b', j), Shape{out});
            }
        }
    }
    return t;
}

std::vector<Variable> sequences(const std::vector<int64_t>& lengths, int64_t in, Dtype dtype = Dtype::kFloat32) {
    std::vector<Variable> xs;
    for (int64_t n : lengths) xs.emplace_back(randn({n, in}, dtype));
    return xs;
}

// Time steps of sorted sequences, and back (F::transpose_sequence is its own inverse).
std::vector<Variable> steps(const std::vector<Variable>& xs) { return F::transpose_sequence(xs); }
F::NStepLSTMResult as_sequences(F::NStepLSTMResult r) {
    r.ys = F::transpose_sequence(r.ys);
    return r;
}
std::pair<Variable, std::vector<Variable>> as_sequences(std::pair<Variable, std::vector<Variable>> r) {
    r.second = F::transpose_sequence(r.second);
    return r;
}

std::vector<Variable> pick(const std::vector<Variable>& xs, const std::vector<int64_t>& order) {
    std::vector<Variable> out;
    for (int64_t i : order) out.push_back(xs[i]);
    return out;
}

// Column i (sequence i) of `actual` against column position_of[i] of `expected`.
void check_columns(const Variable& actual, const Variable& expected, const std::vector<int64_t>& position_of) {
    for (size_t i = 0; i < position_of.size(); ++i) {
        check_allclose(actual.array().index({Slice{}, static_cast<int64_t>(i)}),
                       expected.array().index({Slice{}, position_of[i]}));
    }
}

}  // namespace

TEST_CASE("NStep links: parameter names and shapes as in Chainer", "[links][rnn]") {
    CHECK(param_table(L::NStepLSTM(2, 3, 4, 0.0)) == expected_table(2, 1, 8, 3, 4));
    CHECK(param_table(L::NStepBiLSTM(2, 3, 4, 0.0)) == expected_table(2, 2, 8, 3, 4));
    CHECK(param_table(L::NStepGRU(2, 3, 4, 0.0)) == expected_table(2, 1, 6, 3, 4));
    CHECK(param_table(L::NStepBiGRU(1, 3, 4, 0.0)) == expected_table(1, 2, 6, 3, 4));
    CHECK(param_table(L::NStepRNNTanh(2, 3, 4, 0.0)) == expected_table(2, 1, 2, 3, 4));
    CHECK(param_table(L::NStepBiRNNReLU(2, 3, 4, 0.0)) == expected_table(2, 2, 2, 3, 4));
    L::NStepBiLSTM bi(2, 3, 4, 0.25);
    CHECK(bi.size() == 4);
    CHECK(bi.n_layers() == 2);
    CHECK(bi.direction() == 2);
    CHECK(bi.n_weights() == 8);
    CHECK(bi.dropout() == 0.25);
    CHECK(bi.out_size() == 4);
    // Biases start at 0; initialW / initial_bias are honoured.
    check_allclose(bi[3].param("b5").array(), std::vector<double>(4, 0.0), {4}, {0, 0});
    L::NStepGRU custom(1, 3, 2, 0.0,
                       {.initialW = initializers::constant(2), .initial_bias = initializers::constant(3)});
    check_allclose(custom[0].param("w4").array(), std::vector<double>(4, 2.0), {2, 2}, {0, 0});
    check_allclose(custom[0].param("b0").array(), {3, 3}, {2}, {0, 0});
    CHECK_THROWS_AS(L::NStepLSTM(0, 3, 4, 0.0), ValueError);
    CHECK_THROWS_AS(L::NStepLSTM(1, 3, 0, 0.0), ValueError);
    CHECK_THROWS_AS(L::NStepLSTM(1, 3, 4, 1.0), ValueError);
}

TEST_CASE("NStepLSTM: sorted sequences match F::n_step_lstm", "[links][rnn]") {
    L::NStepLSTM lstm(2, 3, 4, 0.0);
    const std::vector<Variable> xs = sequences({3, 2, 2}, 3);
    const Variable hx(randn({2, 3, 4})), cx(randn({2, 3, 4}));
    const F::NStepLSTMResult out = lstm(hx, cx, xs);
    const F::NStepLSTMResult ref = as_sequences(F::n_step_lstm(2, 0.0, hx, cx, lstm.ws(), lstm.bs(), steps(xs)));
    check_allclose(out.hy.array(), ref.hy.array());
    check_allclose(out.cy.array(), ref.cy.array());
    REQUIRE(out.ys.size() == 3);
    for (size_t i = 0; i < 3; ++i) check_allclose(out.ys[i].array(), ref.ys[i].array());
    // None states are zeros.
    const Variable zeros(ops::zeros({2, 3, 4}));
    const F::NStepLSTMResult none = lstm({}, {}, xs);
    const F::NStepLSTMResult ref0 = as_sequences(F::n_step_lstm(2, 0.0, zeros, zeros, lstm.ws(), lstm.bs(), steps(xs)));
    check_allclose(none.hy.array(), ref0.hy.array());
    check_allclose(none.cy.array(), ref0.cy.array());
    check_allclose(none.ys[1].array(), ref0.ys[1].array());
}

TEST_CASE("NStepBiLSTM: unsorted sequences are sorted and restored", "[links][rnn]") {
    L::NStepBiLSTM lstm(1, 3, 2, 0.0);
    const std::vector<Variable> xs = sequences({1, 3, 2}, 3);
    const std::vector<int64_t> order{1, 2, 0}, position_of{2, 0, 1};  // xs[i] is sorted[position_of[i]]
    const Variable hx(randn({2, 3, 2})), cx(randn({2, 3, 2}));
    const F::NStepLSTMResult out = lstm(hx, cx, xs);
    const Variable hx_sorted = F::get_item(hx, {Slice{}, Array::from_vector(order, {3})});
    const Variable cx_sorted = F::get_item(cx, {Slice{}, Array::from_vector(order, {3})});
    const F::NStepLSTMResult ref =
        as_sequences(F::n_step_bilstm(1, 0.0, hx_sorted, cx_sorted, lstm.ws(), lstm.bs(), steps(pick(xs, order))));
    check_columns(out.hy, ref.hy, position_of);
    check_columns(out.cy, ref.cy, position_of);
    for (size_t i = 0; i < 3; ++i) {
        CHECK(out.ys[i].shape() == Shape{xs[i].shape()[0], 4});
        check_allclose(out.ys[i].array(), ref.ys[position_of[i]].array());
    }
}

TEST_CASE("NStepGRU and NStepRNN links match their functions", "[links][rnn]") {
    const std::vector<Variable> xs = sequences({2, 3}, 3);
    const std::vector<int64_t> order{1, 0}, position_of{1, 0};
    const Variable hx(randn({2, 2, 2}));
    const Variable hx_sorted = F::get_item(hx, {Slice{}, Array::from_vector(order, {2})});
    const auto check = [&](const std::pair<Variable, std::vector<Variable>>& out,
                           const std::pair<Variable, std::vector<Variable>>& ref) {
        check_columns(out.first, ref.first, position_of);
        for (size_t i = 0; i < 2; ++i) check_allclose(out.second[i].array(), ref.second[position_of[i]].array());
    };
    L::NStepGRU gru(2, 3, 2, 0.0);
    check(gru(hx, xs), as_sequences(F::n_step_gru(2, 0.0, hx_sorted, gru.ws(), gru.bs(), steps(pick(xs, order)))));
    L::NStepBiGRU bigru(1, 3, 2, 0.0);
    check(bigru(hx, xs),
          as_sequences(F::n_step_bigru(1, 0.0, hx_sorted, bigru.ws(), bigru.bs(), steps(pick(xs, order)))));
    L::NStepRNNTanh tanh_rnn(2, 3, 2, 0.0);
    check(tanh_rnn(hx, xs),
          as_sequences(F::n_step_rnn(2, 0.0, hx_sorted, tanh_rnn.ws(), tanh_rnn.bs(), steps(pick(xs, order)))));
    L::NStepRNNReLU relu_rnn(2, 3, 2, 0.0);
    check(relu_rnn(hx, xs),
          as_sequences(F::n_step_rnn(2, 0.0, hx_sorted, relu_rnn.ws(), relu_rnn.bs(), steps(pick(xs, order)), "relu")));
    L::NStepBiRNNTanh bi_rnn(1, 3, 2, 0.0);
    check(bi_rnn(hx, xs),
          as_sequences(F::n_step_birnn(1, 0.0, hx_sorted, bi_rnn.ws(), bi_rnn.bs(), steps(pick(xs, order)))));
}

TEST_CASE("NStep links: dropout is off outside training", "[links][rnn]") {
    L::NStepLSTM lstm(2, 3, 2, 0.5);
    const std::vector<Variable> xs = sequences({2, 1}, 3);
    ConfigScope eval{&Config::train, false};
    const F::NStepLSTMResult out = lstm({}, {}, xs);
    const Variable zeros(ops::zeros({2, 2, 2}));
    const F::NStepLSTMResult ref = as_sequences(F::n_step_lstm(2, 0.0, zeros, zeros, lstm.ws(), lstm.bs(), steps(xs)));
    check_allclose(out.ys[0].array(), ref.ys[0].array());
}

TEST_CASE("NStep links: lazy in_size and argument errors", "[links][rnn]") {
    L::NStepBiGRU gru(2, std::nullopt, 3, 0.0);
    CHECK_FALSE(gru[0].param("w0").is_initialized());
    CHECK(gru[2].param("w0").shape() == Shape{3, 6});
    const auto [hy, ys] = gru({}, sequences({2, 1}, 5));
    CHECK(hy.shape() == Shape{4, 2, 3});
    CHECK(ys[0].shape() == Shape{2, 6});
    for (int d = 0; d < 2; ++d) {
        CHECK(gru[d].param("w2").shape() == Shape{3, 5});
        CHECK(gru[d].param("w3").shape() == Shape{3, 3});
    }
    CHECK_THROWS_AS(gru({}, {}), ValueError);
    CHECK_THROWS_WITH(gru({}, sequences({2, 0}, 5)), Catch::Contains("NStepBiGRU: Expect: every xs[i].shape[0] > 0"));
    CHECK_THROWS_AS(gru(Variable(randn({4, 3, 3})), sequences({2, 1}, 5)), DimensionError);  // len(xs) != 3
    CHECK_THROWS_AS(gru(Variable(randn({2, 2, 3})), sequences({2, 1}, 5)), DimensionError);  // 2 != 2 * 2 layers
    gru.append(std::make_shared<L::NStepRNNLayer>(6, 3, 3, nullptr, nullptr));
    CHECK_THROWS_AS(gru({}, sequences({2, 1}, 5)), DimensionError);  // 5 layers and directions, not 4
    L::NStepRNNTanh rnn(1, 2, 2, 0.0);
    rnn.append(std::make_shared<L::ChainList>());
    CHECK_THROWS_AS(rnn({}, sequences({1}, 2)), ValueError);  // not a layer
}

TEST_CASE("NStep links: gradients with unsorted sequences", "[links][rnn]") {
    auto lstm = std::make_shared<L::NStepBiLSTM>(1, 2, 2, 0.0);
    to_float64(*lstm);
    const auto f = [lstm](const std::vector<Variable>& in) {
        const F::NStepLSTMResult out = (*lstm)(in[0], in[1], {in[2], in[3]});
        return joined({out.hy, out.cy, out.ys[0], out.ys[1]});
    };
    const std::vector<Array> inputs{randn({2, 2, 2}, Dtype::kFloat64), randn({2, 2, 2}, Dtype::kFloat64),
                                    randn({1, 2}, Dtype::kFloat64), randn({2, 2}, Dtype::kFloat64)};
    check_link_backward(f, inputs, lstm->params(), randn({8 + 8 + 4 + 8}, Dtype::kFloat64));

    auto gru = std::make_shared<L::NStepGRU>(2, 2, 2, 0.0);
    to_float64(*gru);
    const auto g = [gru](const std::vector<Variable>& in) {
        const auto [hy, ys] = (*gru)(in[0], {in[1], in[2]});
        return joined({hy, ys[0], ys[1]});
    };
    const std::vector<Array> gru_inputs{randn({2, 2, 2}, Dtype::kFloat64), randn({1, 2}, Dtype::kFloat64),
                                        randn({3, 2}, Dtype::kFloat64)};
    check_link_backward(g, gru_inputs, gru->params(), randn({8 + 2 + 6}, Dtype::kFloat64));
}

TEST_CASE("NStep links: copy and NPZ round trip", "[links][rnn]") {
    L::NStepLSTM lstm(2, 3, 2, 0.0);
    auto copied = std::dynamic_pointer_cast<L::NStepLSTM>(lstm.copy());
    REQUIRE(copied != nullptr);
    CHECK(copied->size() == 2);
    CHECK((*copied)[1].param("w7").array().raw_data() == lstm[1].param("w7").array().raw_data());
    const std::vector<Variable> xs = sequences({2, 3}, 3);
    check_allclose((*copied)({}, {}, xs).ys[1].array(), lstm({}, {}, xs).ys[1].array());

    TempPath path("n_step_lstm");
    serializers::save_npz(path.str(), lstm);
    L::NStepLSTM loaded(2, std::nullopt, 2, 0.0);
    serializers::load_npz(path.str(), loaded);
    const auto saved_params = lstm.namedparams(), loaded_params = loaded.namedparams();
    REQUIRE(saved_params.size() == loaded_params.size());
    for (size_t i = 0; i < saved_params.size(); ++i) {
        INFO(saved_params[i].first);
        check_allclose(loaded_params[i].second.array(), saved_params[i].second.array(), {0, 0});
    }
    L::NStepLSTM wider(2, 3, 3, 0.0);
    CHECK_THROWS_AS(serializers::load_npz(path.str(), wider), DimensionError);
}
