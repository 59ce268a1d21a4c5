#pragma once
// Note [Philox streams]: random numbers come from Philox4x32-10, a counter-based
// generator: block(key = seed, counter = c) gives 4 independent 32-bit words. The
// global generator hands out disjoint counter ranges, one per call, so each element's
// numbers depend only on (seed, its counter) and never on the device or the thread
// count. Every backend implements the same mapping from counters to values.

#include <array>
#include <cstdint>
#include <mutex>

namespace rensa {

// One Philox4x32-10 block.
std::array<uint32_t, 4> philox4x32(uint64_t key, uint64_t counter);

// Maps 32-bit words to floats in [0, 1) (24 bits) and doubles in [0, 1) (53 bits).
inline float uniform_float(uint32_t w) { return static_cast<float>(w >> 8) * (1.0f / 16777216.0f); }
inline double uniform_double(uint32_t hi, uint32_t lo) {
    return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}

// The process-wide generator: a seed and the next unused counter.
class Generator {
public:
    // Restarts the stream: the same seed gives the same sequence of arrays again.
    void seed(uint64_t seed);
    // Reserves `count` counters and returns {seed, first counter}.
    std::pair<uint64_t, uint64_t> reserve(uint64_t count);

private:
    std::mutex mutex_;
    uint64_t seed_ = 0;
    uint64_t offset_ = 0;
};

Generator& global_generator();
// Seeds the global generator (like numpy.random.seed / chainer's seeding).
void seed(uint64_t value);

}  // namespace rensa
