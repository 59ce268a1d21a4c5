#pragma once
// BlackOut (chainer.links.BlackOut): the BlackOut loss with output embeddings W (vocab,
// in_size) and negatives drawn from the unigram distribution of `counts` through a Walker
// alias table, as Chainer does.

#include <cstdint>
#include <vector>

#include "autograd/variable.h"
#include "links/link.h"
#include "links/loss/negative_sampling.h"

namespace rensa::links {

class BlackOut : public Cloneable<BlackOut> {
public:
    // counts[i]: the frequency of word i (vocab = counts.size()); sample_size negatives per
    // row. W (vocab, in_size) starts as NaN (Chainer's Parameter without an initializer):
    // set it before use.
    BlackOut(int64_t in_size, const std::vector<double>& counts, int64_t sample_size, Dtype dtype = Dtype::kFloat32);

    using Link::forward;
    // x (N, in_size), t (N,) integer labels: F::black_out with "mean" reduction.
    Variable forward(const Variable& x, const Variable& t);
    // xs = {x, t}; ValueError for another count.
    Variable forward(const std::vector<Variable>& xs) override;

    Parameter W;  // NOLINT(readability-identifier-naming): Chainer's name
    int64_t sample_size;
    WalkerAlias sampler;
    // Chainer's test hook: when defined, the negative samples (N, sample_size) used instead
    // of drawing.
    Array sample_data{};
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
