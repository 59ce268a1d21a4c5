#pragma once
// NegativeSampling (chainer.links.NegativeSampling): the negative sampling loss with
// output embeddings W (vocab, in_size) and negatives drawn from the unigram distribution
// raised to `power`, through a Walker alias table (chainer.utils.WalkerAlias).

#include <cstdint>
#include <string_view>
#include <vector>

#include "autograd/variable.h"
#include "links/link.h"

namespace rensa::links {

// Walker's alias method: draws ids i with probability probs[i] / sum(probs) in O(1) each.
// The table lives on the host; draws come from rensa's Philox generator.
class WalkerAlias {
public:
    // probs: non-negative weights, at least one and not all zero (ValueError otherwise).
    explicit WalkerAlias(const std::vector<double>& probs);
    // int32 ids of `shape` on `device`.
    [[nodiscard]] Array sample(const Shape& shape, Device device = default_device()) const;
    // Chainer's attributes: threshold[i] and values[2 i], values[2 i + 1] (left, right).
    const std::vector<double>& threshold() const { return threshold_; }
    const std::vector<int32_t>& values() const { return values_; }

private:
    std::vector<double> threshold_;
    std::vector<int32_t> values_;
};

class NegativeSampling : public Cloneable<NegativeSampling> {
public:
    // counts[i]: the frequency of word i (vocab = counts.size()); sample_size negatives per
    // row. W (vocab, in_size) starts at zero, as in Chainer.
    NegativeSampling(int64_t in_size, const std::vector<double>& counts, int64_t sample_size, double power = 0.75,
                     Dtype dtype = Dtype::kFloat32);

    using Link::forward;
    // x (N, in_size), t (N,) integer labels (-1: ignored row); reduce "sum" (0-d) or "no" (N,).
    Variable forward(const Variable& x, const Variable& t, std::string_view reduce = "sum");
    // xs = {x, t}; ValueError for another count.
    Variable forward(const std::vector<Variable>& xs) override;

    Parameter W;  // NOLINT(readability-identifier-naming): Chainer's name
    int64_t sample_size;
    WalkerAlias sampler;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
