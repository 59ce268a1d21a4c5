#include "core/random.h"

namespace rensa {
namespace {

// Philox4x32-10 constants (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // key bumps: the golden ratio and sqrt(3) - 1
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

// The seed of a generator that was never seeded: programs are reproducible unless they seed.
constexpr uint64_t kDefaultSeed = 0;

void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
    const uint64_t product = static_cast<uint64_t>(a) * b;
    hi = static_cast<uint32_t>(product >> 32);
    lo = static_cast<uint32_t>(product);
}

}  // namespace

// Key = {low, high} words of the seed; counter = {low, high, 0, 0} words of the counter.
std::array<uint32_t, 4> philox4x32(uint64_t key, uint64_t counter) {
    std::array<uint32_t, 4> c = {static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u};
    uint32_t k0 = static_cast<uint32_t>(key);
    uint32_t k1 = static_cast<uint32_t>(key >> 32);
    for (int round = 0; round < kPhiloxRounds; ++round) {
        if (round > 0) {
            k0 += kPhiloxW0;
            k1 += kPhiloxW1;
        }
        uint32_t hi0 = 0, lo0 = 0, hi1 = 0, lo1 = 0;
        mulhilo(kPhiloxM0, c[0], hi0, lo0);
        mulhilo(kPhiloxM1, c[2], hi1, lo1);
        c = {hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0};
    }
    return c;
}

void Generator::seed(uint64_t seed) {
    const std::lock_guard lock{mutex_};
    seed_ = seed;
    offset_ = 0;
}

std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t count) {
    const std::lock_guard lock{mutex_};
    const uint64_t first = offset_;
    offset_ += count;  // 2^64 counters per seed: wrapping around is out of reach
    return {seed_, first};
}

Generator& global_generator() {
    static Generator generator;
    static const bool seeded = (generator.seed(kDefaultSeed), true);  // once, thread-safe
    static_cast<void>(seeded);
    return generator;
}

void seed(uint64_t value) { global_generator().seed(value); }

}  // namespace rensa
