#pragma once
// BinaryHierarchicalSoftmax (chainer.links.BinaryHierarchicalSoftmax): the loss of a word
// is the sum, over the internal nodes on its path from the root of a binary tree, of
// softplus(-code * W[node] . x), code +1 for a left turn and -1 for a right one; the link
// returns the sum over the batch (0-d). Internal nodes are numbered in preorder, so W has
// one row per internal node, as in Chainer (NPZ key W).

#include <cstdint>
#include <memory>
#include <vector>

#include "autograd/variable.h"
#include "links/link.h"

namespace rensa::links {

// A binary tree whose leaves are word ids: a leaf, or an internal node with two children.
struct BinaryTree {
    int64_t word = -1;  // a leaf's word id (>= 0); -1 for an internal node
    std::shared_ptr<const BinaryTree> left, right;

    [[nodiscard]] static BinaryTree leaf(int64_t word);
    [[nodiscard]] static BinaryTree node(BinaryTree left, BinaryTree right);
    bool is_leaf() const { return !left; }
};

class BinaryHierarchicalSoftmax : public Cloneable<BinaryHierarchicalSoftmax> {
public:
    // W (number of internal nodes, in_size) starts uniform in [-1, 1) (Chainer's Uniform(1)).
    // ValueError for a negative word id or a word that appears twice.
    BinaryHierarchicalSoftmax(int64_t in_size, const BinaryTree& tree, Dtype dtype = Dtype::kFloat32);

    // Chainer's create_huffman_tree over word ids 0..n-1 with counts[i]: repeatedly joins
    // the two lightest trees (ties broken by the smallest id they hold, Chainer's order) as
    // (lighter, heavier). ValueError for an empty vocabulary.
    [[nodiscard]] static BinaryTree create_huffman_tree(const std::vector<double>& counts);

    using Link::forward;
    // x (N, in_size), t (N,) integer word ids in [0, n_vocab): the summed loss (0-d). A
    // word that is not in the tree costs 0, as in Chainer.
    Variable forward(const Variable& x, const Variable& t);
    Variable forward(const std::vector<Variable>& xs) override;  // {x, t}

    Parameter W;  // NOLINT(readability-identifier-naming): Chainer's name

private:
    // Per word (rows, n_vocab = max id + 1): the internal nodes on its path, padded with 0,
    // and the codes +1 / -1, padded with 0.
    Array paths_, codes_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
