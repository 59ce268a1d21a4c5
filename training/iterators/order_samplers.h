#pragma once
// chainer.iterators.ShuffleOrderSampler: a fresh random permutation for each epoch.

#include <cstdint>
#include <optional>
#include <vector>

#include "training/iterator.h"

namespace rensa::training::iterators {

// Permutations from a counter-based generator (Philox): the same seed gives the same
// orders, and its state (seed, counter) is saved with the iterator.
//
// Note [Resumable shuffling]: each permutation is a Fisher-Yates shuffle driven by
// philox4x32(seed, counter), counter advancing by the blocks it used. Saving (seed,
// counter) next to the current order therefore lets a resumed iterator draw exactly the
// orders an uninterrupted one would have drawn.
class ShuffleOrderSampler final : public OrderSampler {
public:
    // nullopt: a seed drawn from the global generator (so rensa::seed() fixes it).
    explicit ShuffleOrderSampler(std::optional<uint64_t> seed = std::nullopt);
    // A random permutation of [0, current_order.size()) (Chainer ignores the position too).
    std::vector<int64_t> operator()(const std::vector<int64_t>& current_order, int64_t current_position) override;
    // "seed" and "counter" (int64; the seed's bits as stored). A file without them (one
    // Chainer wrote: its RandomState is not saved) leaves the state as it is.
    void serialize(const serializers::Serializer& serializer) override;

    uint64_t seed() const { return static_cast<uint64_t>(seed_); }
    uint64_t counter() const { return static_cast<uint64_t>(counter_); }

private:
    int64_t seed_ = 0;
    int64_t counter_ = 0;
};

}  // namespace rensa::training::iterators
