#include "training/iterators/order_samplers.h"

#include <array>
#include <numeric>
#include <utility>

#include "core/error.h"
#include "core/random.h"

namespace rensa::training::iterators {
namespace {

// 64-bit draws from consecutive Philox blocks (two per block), counting the blocks used.
class PhiloxStream {
public:
    PhiloxStream(uint64_t key, uint64_t counter) : key_{key}, counter_{counter} {}

    uint64_t next64() {
        if (used_ == 4) {
            block_ = philox4x32(key_, counter_++);
            used_ = 0;
        }
        const uint64_t value = (static_cast<uint64_t>(block_[used_]) << 32) | block_[used_ + 1];
        used_ += 2;
        return value;
    }
    // Uniform in [0, bound) without bias (Lemire's multiply-and-reject).
    uint64_t below(uint64_t bound) {
        unsigned __int128 m = static_cast<unsigned __int128>(next64()) * bound;
        if (static_cast<uint64_t>(m) < bound) {
            const uint64_t threshold = (0 - bound) % bound;
            while (static_cast<uint64_t>(m) < threshold) m = static_cast<unsigned __int128>(next64()) * bound;
        }
        return static_cast<uint64_t>(m >> 64);
    }
    uint64_t counter() const { return counter_; }  // the first block not used yet

private:
    uint64_t key_;
    uint64_t counter_;
    std::array<uint32_t, 4> block_{};
    int used_ = 4;
};

uint64_t draw_seed() {
    const auto [key, counter] = global_generator().reserve(1);
    const std::array<uint32_t, 4> block = philox4x32(key, counter);
    return (static_cast<uint64_t>(block[0]) << 32) | block[1];
}

// The stored int64 under `key`, or nullopt when the file does not hold it (see the header).
std::optional<int64_t> load_state_word(const serializers::Serializer& serializer, std::string_view key) {
    try {
        const std::optional<Array> stored = serializer.backend().load(serializer.key(key), Dtype::kInt64, Shape{});
        if (!stored || !stored->defined()) return std::nullopt;
        return stored->item<int64_t>();
    } catch (const KeyError&) {
        return std::nullopt;
    }
}

}  // namespace

ShuffleOrderSampler::ShuffleOrderSampler(std::optional<uint64_t> seed)
    : seed_{static_cast<int64_t>(seed ? *seed : draw_seed())} {}

std::vector<int64_t> ShuffleOrderSampler::operator()(const std::vector<int64_t>& current_order,
                                                     int64_t current_position) {
    (void)current_position;
    std::vector<int64_t> order(current_order.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    PhiloxStream stream{static_cast<uint64_t>(seed_), static_cast<uint64_t>(counter_)};
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[stream.below(i)]);
    counter_ = static_cast<int64_t>(stream.counter());
    return order;
}

void ShuffleOrderSampler::serialize(const serializers::Serializer& serializer) {
    if (!serializer.is_loading()) {
        serializer("seed", seed_);
        serializer("counter", counter_);
        return;
    }
    const std::optional<int64_t> seed = load_state_word(serializer, "seed");
    const std::optional<int64_t> counter = load_state_word(serializer, "counter");
    if (!seed || !counter) return;  // both or neither: a half state would give other orders
    serializer.backend().defer([this, seed = *seed, counter = *counter] {
        seed_ = seed;
        counter_ = counter;
    });
}

}  // namespace rensa::training::iterators
