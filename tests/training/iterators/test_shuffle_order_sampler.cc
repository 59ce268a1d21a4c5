#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <numeric>
#include <set>

#include "core/random.h"
#include "training/iterators/order_samplers.h"

namespace rensa {
namespace {

using training::iterators::ShuffleOrderSampler;
using Indices = std::vector<int64_t>;

bool is_permutation(const Indices& order) {
    Indices sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i] != static_cast<int64_t>(i)) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("ShuffleOrderSampler: permutations that depend only on seed and counter", "[training][iterators]") {
    ShuffleOrderSampler a{123}, b{123}, c{124};
    std::set<Indices> seen;
    for (int k = 0; k < 20; ++k) {
        const uint64_t counter = a.counter();
        const Indices order = a(Indices(50), 0);
        CHECK(order.size() == 50);
        CHECK(is_permutation(order));
        CHECK(a.counter() > counter);  // each draw moves on
        CHECK(b(Indices(50), 7) == order);
        CHECK(c(Indices(50), 0) != order);
        seen.insert(order);
    }
    CHECK(seen.size() == 20);
    CHECK(a.seed() == 123);
    // Degenerate sizes.
    CHECK(a(Indices{}, 0).empty());
    CHECK(a(Indices(1), 0) == Indices{0});
}

TEST_CASE("ShuffleOrderSampler: positions are spread evenly", "[training][iterators]") {
    // Each index lands in each of 4 positions about 1/4 of the time (a broken shuffle,
    // e.g. drawing j from [0, n) instead of [0, i], fails this).
    ShuffleOrderSampler sampler{2024};
    constexpr int kDraws = 8000;
    int counts[4][4] = {};
    for (int k = 0; k < kDraws; ++k) {
        const Indices order = sampler(Indices(4), 0);
        for (int p = 0; p < 4; ++p) ++counts[order[static_cast<size_t>(p)]][p];
    }
    for (const auto& row : counts) {
        for (const int count : row) CHECK(std::abs(count - kDraws / 4) < 150);  // ~4.4 sigma
    }
    // And all 24 permutations of 4 appear with similar frequency.
    std::map<Indices, int> perms;
    ShuffleOrderSampler again{7};
    for (int k = 0; k < 24000; ++k) ++perms[again(Indices(4), 0)];
    CHECK(perms.size() == 24);
    for (const auto& [order, count] : perms) CHECK(std::abs(count - 1000) < 160);
}

TEST_CASE("ShuffleOrderSampler: without a seed the global generator decides", "[training][iterators]") {
    rensa::seed(5);
    ShuffleOrderSampler a, b;
    rensa::seed(5);
    ShuffleOrderSampler c;
    CHECK(a.seed() == c.seed());
    CHECK(a.seed() != b.seed());
    CHECK(a(Indices(30), 0) == c(Indices(30), 0));
}

}  // namespace rensa
