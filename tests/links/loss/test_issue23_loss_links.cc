// BlackOut, CRF1d and BinaryHierarchicalSoftmax (issue 23): forward against the function or
// a float64 loop, gradients through the parameters, the transposed CRF interface, the
// Huffman tree of Chainer's create_huffman_tree, NPZ keys, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/array.h"
#include "functions/loss.h"
#include "links/loss/black_out.h"
#include "links/loss/crf1d.h"
#include "links/loss/hierarchical_softmax.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array ints(const std::vector<int32_t>& values, const Shape& shape) { return Array::from_vector(values, shape); }
Array uniform64(const Shape& shape) { return ops::uniform(shape, -1, 1, Dtype::kFloat64); }
const Array kScalarGrad = Array::from_vector(std::vector<double>{1.0}, Shape{});

// The tree as Chainer prints it: leaves as ids, nodes as (left, right).
std::string str(const L::BinaryTree& t) {
    return t.is_leaf() ? std::to_string(t.word) : "(" + str(*t.left) + ", " + str(*t.right) + ")";
}

}  // namespace

TEST_CASE("BlackOut: W, forward with given samples, gradients, NPZ", "[links][loss]") {
    L::BlackOut bo(3, {1, 2, 3, 4, 5}, 2, Dtype::kFloat64);
    CHECK(bo.W.shape() == Shape{5, 3});
    CHECK(std::isnan(to_doubles(bo.W.array())[0]));  // Chainer's uninitialised Parameter
    seed(5);
    bo.W.array().assign(uniform64({5, 3}));
    bo.sample_data = ints({0, 2, 3, 1, 4, 2, 1, 1}, {4, 2});
    const Array x = uniform64({4, 3}), t = ints({1, 4, 0, 3}, {4});
    const Variable y = bo(Variable(x), Variable(t));
    const Variable expected = F::black_out(Variable(x), Variable(t), bo.W, Variable(bo.sample_data, false));
    CHECK(y.array().item<double>() == Approx(expected.array().item<double>()));
    check_link_backward([&bo](const std::vector<Variable>& xs) { return bo(xs[0], xs[1]); }, {x, t}, {bo.W},
                        kScalarGrad);
    // Drawn samples are ids of the vocabulary.
    bo.sample_data = Array{};
    CHECK(std::isfinite(bo(Variable(x), Variable(t)).array().item<double>()));
    L::BlackOut target(3, {1, 2, 3, 4, 5}, 2, Dtype::kFloat64);
    CHECK(npz_round_trip(bo, target) == std::vector<std::string>{"W"});
    CHECK(to_doubles(target.W.array()) == to_doubles(bo.W.array()));
    CHECK_THROWS_AS(L::BlackOut(0, {1, 2}, 2), ValueError);
    CHECK_THROWS_AS(L::BlackOut(3, {}, 2), ValueError);
}

TEST_CASE("CRF1d: forward, transpose, argmax, gradients, NPZ", "[links][loss]") {
    L::CRF1d crf(3, nullptr, Dtype::kFloat64);
    CHECK(to_doubles(crf.cost.array()) == std::vector<double>(9, 0.0));
    seed(7);
    crf.cost.array().assign(uniform64({3, 3}));
    // Sequences of lengths 2, 3, 1 in this order; time-major they are sorted 3, 2, 1.
    const std::vector<Array> seqs = {uniform64({2, 3}), uniform64({3, 3}), uniform64({1, 3})};
    const std::vector<Array> labels = {ints({0, 2}, {2}), ints({1, 1, 0}, {3}), ints({2}, {1})};
    std::vector<Variable> xs, ys;
    for (size_t i = 0; i < seqs.size(); ++i) xs.emplace_back(seqs[i], false), ys.emplace_back(labels[i], false);
    const std::vector<size_t> sorted = {1, 0, 2};
    std::vector<Variable> sx, sy;
    for (const size_t i : sorted) sx.push_back(xs[i]), sy.push_back(ys[i]);
    const std::vector<Variable> tx = F::transpose_sequence(sx), ty = F::transpose_sequence(sy);
    const Variable direct = crf.forward(tx, ty, "no");
    const Variable transposed = crf.forward(xs, ys, "no", true);
    CHECK(to_doubles(transposed.array()) == to_doubles(direct.array()));
    CHECK(crf.forward(xs, ys, "mean", true).array().item<double>() ==
          Approx(F::crf1d(crf.cost, tx, ty).array().item<double>()));

    const auto [score, path] = crf.argmax(xs, true);
    const auto [direct_score, direct_path] = crf.argmax(tx);
    CHECK(to_doubles(score.array()) == to_doubles(direct_score.array()));
    REQUIRE(path.size() == 3);
    for (size_t k = 0; k < sorted.size(); ++k) {  // path of sequence sorted[k] = column k of the time-major path
        const std::vector<int64_t> p = path[sorted[k]].to_vector<int64_t>();
        REQUIRE(static_cast<int64_t>(p.size()) == seqs[sorted[k]].shape()[0]);
        for (size_t t = 0; t < p.size(); ++t) CHECK(p[t] == direct_path[t].to_vector<int64_t>()[k]);
    }
    check_link_backward([&](const std::vector<Variable>&) { return crf.forward(tx, ty, "mean"); }, {}, {crf.cost},
                        kScalarGrad);
    L::CRF1d target(3, nullptr, Dtype::kFloat64);
    CHECK(npz_round_trip(crf, target) == std::vector<std::string>{"cost"});
    CHECK(to_doubles(target.cost.array()) == to_doubles(crf.cost.array()));
    CHECK_THROWS_AS(crf.forward(xs, {ys[0]}, "mean", true), DimensionError);
    CHECK_THROWS_AS(L::CRF1d(0), ValueError);
}

TEST_CASE("BinaryHierarchicalSoftmax: Huffman tree as Chainer builds it", "[links][loss]") {
    // Chainer 7.8.1: create_huffman_tree({0: 3, 1: 1, 2: 2, 3: 5, 4: 5}) == ((0, (1, 2)), (3, 4)).
    CHECK(str(L::BinaryHierarchicalSoftmax::create_huffman_tree({3, 1, 2, 5, 5})) == "((0, (1, 2)), (3, 4))");
    CHECK(str(L::BinaryHierarchicalSoftmax::create_huffman_tree({7})) == "0");
    CHECK_THROWS_WITH(L::BinaryHierarchicalSoftmax::create_huffman_tree({}), Catch::Contains("Empty vocabulary"));
}

TEST_CASE("BinaryHierarchicalSoftmax: loss, gradients, NPZ, errors", "[links][loss]") {
    using T = L::BinaryTree;
    // ((0, 1), (2, (3, 4))): internal nodes in preorder: root 0, (0, 1) 1, (2, (3, 4)) 2, (3, 4) 3.
    const T tree = T::node(T::node(T::leaf(0), T::leaf(1)), T::node(T::leaf(2), T::node(T::leaf(3), T::leaf(4))));
    L::BinaryHierarchicalSoftmax hs(3, tree, Dtype::kFloat64);
    CHECK(hs.W.shape() == Shape{4, 3});
    const std::vector<double> w0 = to_doubles(hs.W.array());
    CHECK(std::all_of(w0.begin(), w0.end(), [](double v) { return v >= -1 && v < 1; }));
    const Array x = uniform64({4, 3}), t = ints({0, 4, 2, 3}, {4});
    // Paths (node, code): 0 -> (0,+1)(1,+1); 4 -> (0,-1)(2,-1)(3,-1); 2 -> (0,-1)(2,+1); 3 -> (0,-1)(2,-1)(3,+1).
    const std::vector<std::vector<std::pair<int, double>>> paths = {
        {{0, 1}, {1, 1}}, {{0, -1}, {2, -1}, {3, -1}}, {{0, -1}, {2, 1}}, {{0, -1}, {2, -1}, {3, 1}}};
    const std::vector<double> xv = to_doubles(x), wv = to_doubles(hs.W.array());
    double expected = 0;
    for (size_t i = 0; i < paths.size(); ++i) {
        for (const auto& [node, code] : paths[i]) {
            double wx = 0;
            for (int d = 0; d < 3; ++d) wx += wv[node * 3 + d] * xv[i * 3 + d];
            expected += std::log1p(std::exp(-code * wx));
        }
    }
    CHECK(hs(Variable(x), Variable(t)).array().item<double>() == Approx(expected));
    check_link_backward([&hs](const std::vector<Variable>& v) { return hs(v[0], v[1]); }, {x, t}, {hs.W}, kScalarGrad);
    L::BinaryHierarchicalSoftmax target(3, tree, Dtype::kFloat64);
    CHECK(npz_round_trip(hs, target) == std::vector<std::string>{"W"});
    CHECK(to_doubles(target.W.array()) == wv);
    CHECK_THROWS_AS(hs(Variable(x), Variable(ints({0, 5, 2, 3}, {4}))), IndexError);
    CHECK_THROWS_AS(hs(Variable(uniform64({4, 2})), Variable(t)), DimensionError);
    CHECK_THROWS_AS(hs(Variable(x), Variable(x)), DimensionError);
    CHECK_THROWS_WITH(L::BinaryHierarchicalSoftmax(3, T::node(T::leaf(1), T::leaf(1))),
                      Catch::Contains("word 1 appears twice"));
}
