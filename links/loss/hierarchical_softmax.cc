#include "links/loss/hierarchical_softmax.h"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/math.h"
#include "links/initializers.h"

namespace rensa::links {
namespace {

// Chainer's TreeParser: internal nodes numbered in preorder; per word its path and codes.
struct ParsedTree {
    int64_t internal_nodes = 0;
    std::map<int64_t, std::pair<std::vector<int64_t>, std::vector<double>>> words;
};

void parse(const BinaryTree& tree, ParsedTree& out, std::vector<int64_t>& path, std::vector<double>& code) {
    if (tree.is_leaf()) {
        RENSA_CHECK(tree.word >= 0, ValueError, "BinaryHierarchicalSoftmax: word ids must be non-negative, got ",
                    tree.word);
        RENSA_CHECK(out.words.count(tree.word) == 0, ValueError, "BinaryHierarchicalSoftmax: word ", tree.word,
                    " appears twice in the tree");
        out.words[tree.word] = {path, code};
        return;
    }
    path.push_back(out.internal_nodes++);
    code.push_back(1.0);
    parse(*tree.left, out, path, code);
    code.back() = -1.0;
    parse(*tree.right, out, path, code);
    path.pop_back();
    code.pop_back();
}

}  // namespace

BinaryTree BinaryTree::leaf(int64_t word) { return BinaryTree{word, nullptr, nullptr}; }

BinaryTree BinaryTree::node(BinaryTree left, BinaryTree right) {
    return BinaryTree{-1, std::make_shared<const BinaryTree>(std::move(left)),
                      std::make_shared<const BinaryTree>(std::move(right))};
}

BinaryTree BinaryHierarchicalSoftmax::create_huffman_tree(const std::vector<double>& counts) {
    RENSA_CHECK(!counts.empty(), ValueError, "BinaryHierarchicalSoftmax.create_huffman_tree: Empty vocabulary");
    // (count, smallest id, index into trees), smallest first: Python's PriorityQueue order.
    using Entry = std::tuple<double, int64_t, size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    std::vector<BinaryTree> trees;
    for (size_t i = 0; i < counts.size(); ++i) {
        trees.push_back(BinaryTree::leaf(static_cast<int64_t>(i)));
        queue.emplace(counts[i], static_cast<int64_t>(i), i);
    }
    while (queue.size() >= 2) {
        const auto [c1, id1, t1] = queue.top();
        queue.pop();
        const auto [c2, id2, t2] = queue.top();
        queue.pop();
        trees.push_back(BinaryTree::node(trees[t1], trees[t2]));
        queue.emplace(c1 + c2, std::min(id1, id2), trees.size() - 1);
    }
    return trees[std::get<2>(queue.top())];
}

BinaryHierarchicalSoftmax::BinaryHierarchicalSoftmax(int64_t in_size, const BinaryTree& tree, Dtype dtype) {
    RENSA_CHECK(in_size > 0, ValueError, "BinaryHierarchicalSoftmax: in_size must be positive, got ", in_size);
    ParsedTree parsed;
    std::vector<int64_t> path;
    std::vector<double> code;
    parse(tree, parsed, path, code);
    const int64_t n_vocab = parsed.words.rbegin()->first + 1;
    size_t depth = 1;
    for (const auto& [word, pc] : parsed.words) depth = std::max(depth, pc.first.size());
    std::vector<int32_t> paths(static_cast<size_t>(n_vocab) * depth, 0);
    std::vector<double> codes(paths.size(), 0.0);
    for (const auto& [word, pc] : parsed.words) {
        for (size_t i = 0; i < pc.first.size(); ++i) {
            paths[static_cast<size_t>(word) * depth + i] = static_cast<int32_t>(pc.first[i]);
            codes[static_cast<size_t>(word) * depth + i] = pc.second[i];
        }
    }
    const Shape table{n_vocab, static_cast<int64_t>(depth)};
    paths_ = Array::from_vector(paths, table);
    codes_ = Array::from_vector(codes, table).astype(dtype);
    register_param(
        "W", &BinaryHierarchicalSoftmax::W,
        Parameter(std::make_shared<initializers::Uniform>(1.0), Shape{parsed.internal_nodes, in_size}, dtype));
}

Variable BinaryHierarchicalSoftmax::forward(const Variable& x, const Variable& t) {
    RENSA_CHECK(x.defined() && x.ndim() == 2, DimensionError,
                "BinaryHierarchicalSoftmax: Expect: x.ndim == 2, Actual: ", x.defined() ? x.ndim() : -1);
    RENSA_CHECK(t.defined() && t.ndim() == 1 && t.shape()[0] == x.shape()[0], DimensionError,
                "BinaryHierarchicalSoftmax: Expect: t of shape (", x.shape()[0], ",)");
    RENSA_CHECK(is_integral(t.dtype()), DtypeError,
                "BinaryHierarchicalSoftmax: Expect: t.dtype.kind in 'iu', Actual: ", t.dtype());
    RENSA_CHECK(x.shape()[1] == W.shape()[1], DimensionError,
                "BinaryHierarchicalSoftmax: Expect: x.shape[1] == W.shape[1], Actual: ", x.shape()[1],
                " != ", W.shape()[1]);
    const Device device = W.device();
    if (paths_.device() != device) paths_ = paths_.to_device(device), codes_ = codes_.to_device(device);
    // The tables' rows of each label, gathered on the device (IndexError outside the vocabulary).
    const Array nodes = ops::take(paths_, t.array(), 0);                           // (N, depth)
    const Array codes = ops::take(codes_, t.array(), 0).astype(x.dtype(), false);  // (N, depth)
    const int64_t n = x.shape()[0];
    const Variable wx = reshape(F::matmul(F::get_item(W, nodes), reshape(x, {n, -1, 1})), codes.shape());
    const Variable losses = F::softplus(-(wx * as_variable(codes)));
    return sum(losses * as_variable(ops::abs(codes)));  // padding has code 0
}

Variable BinaryHierarchicalSoftmax::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, "BinaryHierarchicalSoftmax: forward takes (x, t), got ", xs.size(),
                " inputs");
    return forward(xs[0], xs[1]);
}

}  // namespace rensa::links
