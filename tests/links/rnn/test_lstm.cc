// L::LSTM and L::StatelessLSTM: Chainer's parameter layout and initialisation, values
// against F::linear + F::lstm, state across calls, shrinking batches, lazy in_size,
// gradients, copies and NPZ round trips.

#include <catch2/catch.hpp>

#include "autograd/basic_math.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "links/connection/lstm.h"
#include "links/initializers.h"
#include "serializers/npz.h"
#include "tests/links/rnn/rnn_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// One step of Chainer's LSTM from the link's own parameters (h, c undefined: first step).
std::pair<Variable, Variable> reference_step(const L::LSTMBase& l, const Variable& c, const Variable& h,
                                             const Variable& x) {
    Variable in = F::linear(x, l.upward->W, l.upward->b);
    if (h.defined()) in = in + F::linear(h, l.lateral->W);
    const Variable c0 = c.defined() ? c : Variable(ops::zeros(Shape{x.shape()[0], l.state_size()}, x.dtype()));
    return F::lstm(c0, in);
}

// Records the shapes it is asked to fill (and fills with 0.5).
class RecordingInit : public initializers::Initializer {
public:
    explicit RecordingInit(std::vector<Shape>* shapes) : shapes_{shapes} {}
    void operator()(const Array& array) const override {
        shapes_->push_back(array.shape());
        array.fill(0.5);
    }

private:
    std::vector<Shape>* shapes_;
};

}  // namespace

TEST_CASE("LSTM: parameter names and shapes as in Chainer", "[links][rnn]") {
    L::LSTM lstm(3, 4);
    const std::vector<std::pair<std::string, Shape>> expected{
        {"/upward/W", {16, 3}}, {"/upward/b", {16}}, {"/lateral/W", {16, 4}}};
    CHECK(param_table(lstm) == expected);
    CHECK(lstm.state_size() == 4);
    CHECK_THROWS_AS(L::LSTM(3, 0), ValueError);
    CHECK_THROWS_AS(L::LSTM(std::nullopt), ValueError);
}

TEST_CASE("LSTM: biases 0 except the forget gate 1, matrices initialised per gate block", "[links][rnn]") {
    std::vector<Shape> upward_shapes;
    L::LSTM lstm(3, 2, {.upward_init = std::make_shared<RecordingInit>(&upward_shapes)});
    CHECK(upward_shapes == std::vector<Shape>(4, Shape{2, 3}));
    check_allclose(lstm.upward->W.array(), std::vector<double>(24, 0.5), {8, 3}, {0, 0});
    // Gates a, i, f, o interleaved per unit: b[4u + 2] is unit u's forget gate.
    check_allclose(lstm.upward->b.array(), {0, 0, 1, 0, 0, 0, 1, 0}, {8}, {0, 0});
    // The lateral matrix is LeCunNormal (not the zeros it starts from).
    CHECK(to_doubles(lstm.lateral->W.array()) != std::vector<double>(32, 0.0));

    L::LSTM custom(3, 2, {.bias_init = initializers::constant(0.25), .forget_bias_init = initializers::constant(-1)});
    check_allclose(custom.upward->b.array(), {0.25, 0.25, -1, 0.25, 0.25, 0.25, -1, 0.25}, {8}, {0, 0});
}

TEST_CASE("LSTM: two steps match F::linear and F::lstm", "[links][rnn]") {
    L::LSTM lstm(3, 4);
    const Variable x1(randn({2, 3})), x2(randn({2, 3}));
    const Variable y1 = lstm(x1);
    const Variable y2 = lstm(x2);
    const auto [c1, h1] = reference_step(lstm, {}, {}, x1);
    const auto [c2, h2] = reference_step(lstm, c1, h1, x2);
    check_allclose(y1.array(), h1.array());
    check_allclose(y2.array(), h2.array());
    check_allclose(lstm.h.array(), h2.array());
    check_allclose(lstm.c.array(), c2.array());
    // After reset_state the link starts over.
    lstm.reset_state();
    CHECK_FALSE(lstm.h.defined());
    CHECK_FALSE(lstm.c.defined());
    check_allclose(lstm(x1).array(), h1.array());
}

TEST_CASE("LSTM: a shrinking batch updates the first rows and keeps the rest", "[links][rnn]") {
    L::LSTM lstm(3, 2);
    const Variable x1(randn({3, 3})), x2(randn({2, 3}));
    const Variable y1 = lstm(x1);
    const Array c1 = lstm.c.array().copy(), h1 = lstm.h.array().copy();
    const Variable y2 = lstm(x2);
    REQUIRE(y2.shape() == Shape{2, 2});
    REQUIRE(lstm.h.shape() == Shape{3, 2});
    REQUIRE(lstm.c.shape() == Shape{3, 2});
    const Variable h1_top = F::get_item(Variable(h1), {Slice{0, 2}});
    const auto [c2, h2] = reference_step(lstm, Variable(c1), h1_top, x2);
    check_allclose(y2.array(), h2.array());
    check_allclose(lstm.h.array().index({Slice{0, 2}}), h2.array());
    check_allclose(lstm.h.array().index({Slice{2, 3}}), h1.index({Slice{2, 3}}));
    check_allclose(lstm.c.array(), c2.array());  // F::lstm passes c's extra rows through
    check_allclose(lstm.c.array().index({Slice{2, 3}}), c1.index({Slice{2, 3}}));
    // Growing back is an error (sort sequences by decreasing length).
    CHECK_THROWS_AS(lstm(Variable(randn({4, 3}))), DimensionError);
    // An empty batch leaves the state as it was.
    const Variable y0 = lstm(Variable(randn({0, 3})));
    CHECK(y0.shape() == Shape{0, 2});
    CHECK(lstm.h.shape() == Shape{3, 2});
}

TEST_CASE("LSTM: lazy in_size is learnt from the first x", "[links][rnn]") {
    L::LSTM lstm(4);
    CHECK_FALSE(lstm.upward->W.is_initialized());
    CHECK(lstm.namedparams(false).size() == 2);
    const Variable y = lstm(Variable(randn({2, 3, 2})));  // features flattened: in_size 6
    CHECK(y.shape() == Shape{2, 4});
    CHECK(lstm.upward->W.shape() == Shape{16, 6});
    check_allclose(lstm.upward->b.array().reshape({4, 4}).index({Slice{}, 2}), std::vector<double>(4, 1.0), {4},
                   {0, 0});
    CHECK(to_doubles(lstm.lateral->W.array()) != std::vector<double>(64, 0.0));
    // LSTM(nullopt, 4) is the same.
    L::LSTM same(std::nullopt, 4);
    CHECK_FALSE(same.upward->W.is_initialized());
    CHECK(same.state_size() == 4);
}

TEST_CASE("LSTM: set_state", "[links][rnn]") {
    L::LSTM lstm(3, 2);
    const Variable c(randn({2, 2})), h(randn({2, 2})), x(randn({2, 3}));
    lstm.set_state(c, h);
    CHECK(lstm.c == c);
    CHECK(lstm.h == h);
    const auto [c_ref, h_ref] = reference_step(lstm, c, h, x);
    check_allclose(lstm(x).array(), h_ref.array());
    check_allclose(lstm.c.array(), c_ref.array());
    CHECK_THROWS_AS(lstm.set_state(Variable(), h), ValueError);
}

TEST_CASE("LSTM: gradients through two steps with a shrinking batch", "[links][rnn]") {
    auto lstm = std::make_shared<L::LSTM>(3, 2);
    to_float64(*lstm);
    const auto f = [lstm](const std::vector<Variable>& xs) {
        lstm->reset_state();
        const Variable y1 = (*lstm)(xs[0]);
        const Variable y2 = (*lstm)(xs[1]);
        return joined({y1, y2, lstm->c});
    };
    const std::vector<Array> xs{randn({3, 3}, Dtype::kFloat64), randn({2, 3}, Dtype::kFloat64)};
    check_link_backward(f, xs, lstm->params(), randn({3 * 2 + 2 * 2 + 3 * 2}, Dtype::kFloat64));
}

TEST_CASE("LSTM: copy shares the parameters, not the grads", "[links][rnn]") {
    L::LSTM lstm(3, 2);
    const Variable x(randn({2, 3}));
    const Variable y = lstm(x);
    auto copied = std::dynamic_pointer_cast<L::LSTM>(lstm.copy());
    REQUIRE(copied != nullptr);
    CHECK(copied->upward != lstm.upward);
    CHECK(copied->upward->W.array().raw_data() == lstm.upward->W.array().raw_data());
    CHECK(copied->namedparams().size() == 3);
    lstm.upward->W.set_grad(ops::zeros({8, 3}));
    CHECK_FALSE(copied->upward->W.grad().defined());
    // The copy carries the state and runs on its own.
    copied->reset_state();
    check_allclose((*copied)(x).array(), y.array());
    CHECK(lstm.h.defined());
    auto deep = std::dynamic_pointer_cast<L::LSTM>(lstm.copy(L::CopyMode::kCopy));
    CHECK(deep->lateral->W.array().raw_data() != lstm.lateral->W.array().raw_data());
    check_allclose(deep->lateral->W.array(), lstm.lateral->W.array());
}

TEST_CASE("LSTM: NPZ round trip", "[links][rnn]") {
    TempPath path("lstm");
    L::LSTM saved(3, 2);
    serializers::save_npz(path.str(), saved);
    L::LSTM loaded(3, 2);
    serializers::load_npz(path.str(), loaded);
    check_allclose(loaded.upward->W.array(), saved.upward->W.array(), {0, 0});
    check_allclose(loaded.upward->b.array(), saved.upward->b.array(), {0, 0});
    check_allclose(loaded.lateral->W.array(), saved.lateral->W.array(), {0, 0});
    // Into a lazy link: upward/W takes the stored shape.
    L::LSTM lazy(2);
    serializers::load_npz(path.str(), lazy);
    CHECK(lazy.upward->W.shape() == Shape{8, 3});
    check_allclose(lazy.upward->W.array(), saved.upward->W.array(), {0, 0});
    // A link of another size refuses the file.
    L::LSTM other(3, 3);
    CHECK_THROWS_AS(serializers::load_npz(path.str(), other), DimensionError);
}

TEST_CASE("StatelessLSTM: forward(c, h, x) matches F::lstm", "[links][rnn]") {
    L::StatelessLSTM lstm(3, 2);
    const std::vector<std::pair<std::string, Shape>> expected{
        {"/upward/W", {8, 3}}, {"/upward/b", {8}}, {"/lateral/W", {8, 2}}};
    CHECK(param_table(lstm) == expected);
    const Variable c(randn({2, 2})), h(randn({2, 2})), x(randn({2, 3}));
    const auto [c_new, h_new] = lstm(c, h, x);
    const auto [c_ref, h_ref] = reference_step(lstm, c, h, x);
    check_allclose(c_new.array(), c_ref.array());
    check_allclose(h_new.array(), h_ref.array());
    // None state: zeros for c, no lateral term.
    const auto [c0, h0] = lstm({}, {}, x);
    const auto [c0_ref, h0_ref] = reference_step(lstm, {}, {}, x);
    check_allclose(c0.array(), c0_ref.array());
    check_allclose(h0.array(), h0_ref.array());
    // Lazy in_size.
    L::StatelessLSTM lazy(2);
    CHECK(lazy(c, h, x).second.shape() == Shape{2, 2});
    CHECK(lazy.upward->W.shape() == Shape{8, 3});
}

TEST_CASE("StatelessLSTM: gradients", "[links][rnn]") {
    auto lstm = std::make_shared<L::StatelessLSTM>(3, 2);
    to_float64(*lstm);
    const auto f = [lstm](const std::vector<Variable>& xs) {
        const auto [c, h] = (*lstm)(xs[0], xs[1], xs[2]);
        return joined({c, h});
    };
    const std::vector<Array> xs{randn({2, 2}, Dtype::kFloat64), randn({2, 2}, Dtype::kFloat64),
                                randn({2, 3}, Dtype::kFloat64)};
    check_link_backward(f, xs, lstm->params(), randn({8}, Dtype::kFloat64));
}
