// Philox generator, the native random kernel's value mapping (Note [Random value mapping]
// in core/native/kernels_random.cc) and the random routines of core/ops/random.h.

#include <omp.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <set>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/ops/random.h"
#include "core/random.h"

using namespace rensa;

namespace {

constexpr Dtype kFloatDtypes[] = {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64};

struct Moments {
    double mean, stddev;
};

Moments moments(const std::vector<double>& v) {
    double sum = 0.0, sq = 0.0;
    for (double x : v) sum += x;
    const double mean = sum / static_cast<double>(v.size());
    for (double x : v) sq += (x - mean) * (x - mean);
    return {mean, std::sqrt(sq / static_cast<double>(v.size()))};
}

// Restores OpenMP's thread count when a test changes it.
class ThreadCountScope {
public:
    explicit ThreadCountScope(int threads) : previous_{omp_get_max_threads()} { omp_set_num_threads(threads); }
    ~ThreadCountScope() { omp_set_num_threads(previous_); }
    ThreadCountScope(const ThreadCountScope&) = delete;
    ThreadCountScope& operator=(const ThreadCountScope&) = delete;

private:
    int previous_;
};

}  // namespace

TEST_CASE("random: philox4x32 matches Random123's known answer", "[random]") {
    // Random123 kat_vectors: philox4x32 10 rounds, counter {0,0,0,0}, key {0,0}.
    CHECK(philox4x32(0, 0) == std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
    CHECK(philox4x32(0, 1) != philox4x32(0, 0));
    CHECK(philox4x32(1, 0) != philox4x32(0, 0));
    CHECK(philox4x32(uint64_t{1} << 32, 0) != philox4x32(1, 0));  // both key words matter
    CHECK(philox4x32(0, uint64_t{1} << 32) != philox4x32(0, 1));  // both counter words matter
}

TEST_CASE("random: Generator hands out disjoint counter ranges", "[random]") {
    Generator g;
    CHECK(g.reserve(10) == std::pair<uint64_t, uint64_t>{0, 0});  // never seeded: seed 0
    g.seed(5);
    CHECK(g.reserve(10) == std::pair<uint64_t, uint64_t>{5, 0});
    CHECK(g.reserve(3) == std::pair<uint64_t, uint64_t>{5, 10});
    CHECK(g.reserve(0) == std::pair<uint64_t, uint64_t>{5, 13});
    g.seed(5);
    CHECK(g.reserve(1) == std::pair<uint64_t, uint64_t>{5, 0});
}

TEST_CASE("random: Generator::reserve is thread-safe", "[random]") {
    Generator g;
    constexpr int kThreads = 4, kCalls = 2000;
    std::vector<std::vector<uint64_t>> firsts(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&g, &firsts, t] {
            for (int i = 0; i < kCalls; ++i) firsts[static_cast<size_t>(t)].push_back(g.reserve(2).second);
        });
    }
    for (std::thread& t : threads) t.join();
    std::set<uint64_t> all;
    for (const auto& f : firsts) all.insert(f.begin(), f.end());
    REQUIRE(all.size() == size_t{kThreads * kCalls});
    CHECK(*all.rbegin() == uint64_t{2} * (kThreads * kCalls - 1));
}

TEST_CASE("random: the same seed gives the same arrays again", "[random]") {
    seed(42);
    const auto u1 = ops::uniform({1000}).to_vector<double>();
    const auto n1 = ops::normal({3, 7}, 1.0, 2.0, Dtype::kFloat64).to_vector<double>();
    const auto r1 = ops::randint(0, 100, {50}).to_vector<int64_t>();
    seed(42);
    CHECK(ops::uniform({1000}).to_vector<double>() == u1);
    CHECK(ops::normal({3, 7}, 1.0, 2.0, Dtype::kFloat64).to_vector<double>() == n1);
    CHECK(ops::randint(0, 100, {50}).to_vector<int64_t>() == r1);
}

TEST_CASE("random: different seeds and successive calls differ", "[random]") {
    seed(1);
    const auto a = ops::uniform({100}).to_vector<double>();
    const auto b = ops::uniform({100}).to_vector<double>();
    seed(2);
    const auto c = ops::uniform({100}).to_vector<double>();
    CHECK(a != b);
    CHECK(a != c);
}

TEST_CASE("random: elements follow the documented counter-to-value mapping", "[random]") {
    constexpr uint64_t kSeed = 0x123456789abcdefULL;
    seed(kSeed);
    const auto u64 = ops::uniform({5}, -1.0, 3.0, Dtype::kFloat64).to_vector<double>();  // counters 0..4
    const auto u32 = ops::uniform({5}, -1.0, 3.0, Dtype::kFloat32).to_vector<float>();   // 5..9
    const auto nrm = ops::normal({5}, 0.5, 2.0, Dtype::kFloat64).to_vector<double>();    // 10..14
    const auto ber = ops::bernoulli({5}, 0.5, Dtype::kInt32).to_vector<int32_t>();       // 15..19
    const auto rnd = ops::randint(-10, 1000, {5}).to_vector<int64_t>();                  // 20..24
    for (uint64_t i = 0; i < 5; ++i) {
        CAPTURE(i);
        auto w = philox4x32(kSeed, i);
        CHECK(u64[i] == std::fma(uniform_double(w[0], w[1]), 4.0, -1.0));
        w = philox4x32(kSeed, 5 + i);
        CHECK(u32[i] == std::fma(uniform_float(w[0]), 4.0f, -1.0f));
        w = philox4x32(kSeed, 10 + i);
        const double z = std::sqrt(-2.0 * std::log(1.0 - uniform_double(w[0], w[1]))) *
                         std::cos(2.0 * std::numbers::pi * uniform_double(w[2], w[3]));
        CHECK(nrm[i] == std::fma(2.0, z, 0.5));
        w = philox4x32(kSeed, 15 + i);
        CHECK(ber[i] == (uniform_double(w[0], w[1]) < 0.5 ? 1 : 0));
        w = philox4x32(kSeed, 20 + i);
        const uint64_t r = (uint64_t{w[0]} << 32) | w[1];
        CHECK(rnd[i] == -10 + static_cast<int64_t>((static_cast<unsigned __int128>(r) * 1010u) >> 64));
    }
}

TEST_CASE("random: results are bit-identical for any thread count", "[random]") {
    constexpr int64_t n = int64_t{1} << 18;
    auto draw = [](int threads) {
        const ThreadCountScope scope(threads);
        seed(7);
        std::vector<std::vector<double>> out;
        for (Dtype dtype : kFloatDtypes) {
            out.push_back(ops::uniform({n}, 0.0, 1.0, dtype).to_vector<double>());
            out.push_back(ops::normal({n}, 0.0, 1.0, dtype).to_vector<double>());
        }
        out.push_back(ops::bernoulli({n}, 0.25).to_vector<double>());
        out.push_back(ops::randint(-5, 5, {n}, Dtype::kInt8).to_vector<double>());
        out.push_back(ops::permutation(n).to_vector<double>());
        return out;
    };
    const auto one = draw(1);
    const auto two = draw(2);
    const auto four = draw(4);
    REQUIRE(one.size() == two.size());
    for (size_t k = 0; k < one.size(); ++k) {
        CAPTURE(k);
        CHECK(one[k] == two[k]);
        CHECK(one[k] == four[k]);
    }
}

TEST_CASE("random: normal has the requested mean and stddev", "[random]") {
    constexpr int64_t n = 1000000;
    seed(3);
    // The sample mean has stddev sigma / sqrt(n), the sample stddev about sigma / sqrt(2n): allow 5 of each.
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64}) {
        CAPTURE(dtype);
        const Moments m = moments(ops::normal({n}, 0.0, 1.0, dtype).to_vector<double>());
        CHECK(std::abs(m.mean) < 5.0 / std::sqrt(double{n}));
        CHECK(std::abs(m.stddev - 1.0) < 5.0 / std::sqrt(2.0 * n));
        const Moments s = moments(ops::normal({n}, 2.0, 3.0, dtype).to_vector<double>());
        CHECK(std::abs(s.mean - 2.0) < 5.0 * 3.0 / std::sqrt(double{n}));
        CHECK(std::abs(s.stddev - 3.0) < 5.0 * 3.0 / std::sqrt(2.0 * n));
    }
    const auto zero_std = ops::normal({10}, 1.5, 0.0, Dtype::kFloat64).to_vector<double>();
    CHECK(zero_std == std::vector<double>(10, 1.5));
}

TEST_CASE("random: uniform stays in the half-open range with the right moments", "[random]") {
    constexpr int64_t n = 1000000;
    seed(4);
    const auto v = ops::uniform({n}, -2.0, 3.0, Dtype::kFloat64).to_vector<double>();
    CHECK(*std::min_element(v.begin(), v.end()) >= -2.0);
    CHECK(*std::max_element(v.begin(), v.end()) < 3.0);
    const Moments m = moments(v);
    const double sigma = 5.0 / std::sqrt(12.0);
    CHECK(std::abs(m.mean - 0.5) < 5.0 * sigma / std::sqrt(double{n}));
    CHECK(std::abs(m.stddev - sigma) < 5.0 * 0.01);
}

TEST_CASE("random: every float dtype", "[random]") {
    constexpr int64_t n = 200000;
    seed(5);
    for (Dtype dtype : kFloatDtypes) {
        CAPTURE(dtype);
        // Near 1 the 24-bit uniform rounds up to 1 in float16 and bfloat16: those values must be kept below.
        const Array u = ops::uniform({n}, 0.0, 1.0, dtype);
        CHECK(u.dtype() == dtype);
        const auto uv = u.to_vector<double>();
        CHECK(*std::min_element(uv.begin(), uv.end()) >= 0.0);
        CHECK(*std::max_element(uv.begin(), uv.end()) < 1.0);
        CHECK(std::abs(moments(uv).mean - 0.5) < 0.01);
        const auto shifted = ops::uniform({n}, 1.0, 2.0, dtype).to_vector<double>();
        CHECK(*std::max_element(shifted.begin(), shifted.end()) < 2.0);
        CHECK(*std::min_element(shifted.begin(), shifted.end()) >= 1.0);
        const Array g = ops::normal({n}, 0.0, 1.0, dtype);
        CHECK(g.dtype() == dtype);
        const Moments m = moments(g.to_vector<double>());
        CHECK(std::abs(m.mean) < 0.02);
        CHECK(std::abs(m.stddev - 1.0) < 0.02);
    }
}

TEST_CASE("random: bernoulli frequency", "[random]") {
    constexpr int64_t n = 1000000;
    seed(6);
    const Array b = ops::bernoulli({n}, 0.3);
    CHECK(b.dtype() == Dtype::kBool);
    const Moments m = moments(b.to_vector<double>());
    CHECK(std::abs(m.mean - 0.3) < 5.0 * std::sqrt(0.3 * 0.7 / n));
    const auto f = ops::bernoulli({1000}, 0.5, Dtype::kFloat32).to_vector<double>();
    CHECK(std::all_of(f.begin(), f.end(), [](double x) { return x == 0.0 || x == 1.0; }));
    const auto none = ops::bernoulli({1000}, 0.0, Dtype::kInt64).to_vector<int64_t>();
    CHECK(none == std::vector<int64_t>(1000, 0));
    const auto all = ops::bernoulli({1000}, 1.0, Dtype::kUInt8).to_vector<int64_t>();
    CHECK(all == std::vector<int64_t>(1000, 1));
}

TEST_CASE("random: randint range and coverage", "[random]") {
    seed(8);
    constexpr int64_t n = 700000;
    const Array r = ops::randint(-3, 4, {n}, Dtype::kInt32);
    CHECK(r.dtype() == Dtype::kInt32);
    const auto values = r.to_vector<int64_t>();
    REQUIRE(std::all_of(values.begin(), values.end(), [](int64_t v) { return v >= -3 && v < 4; }));
    std::vector<int64_t> counts(7, 0);
    for (int64_t v : values) ++counts[static_cast<size_t>(v + 3)];
    for (int64_t c : counts) CHECK(std::abs(static_cast<double>(c) - n / 7.0) < 5.0 * std::sqrt(n / 7.0));
    const auto bytes = ops::randint(0, 256, {20000}, Dtype::kUInt8).to_vector<int64_t>();
    CHECK(std::set<int64_t>(bytes.begin(), bytes.end()).size() == 256);
    const auto int8s = ops::randint(-128, 128, {20000}, Dtype::kInt8).to_vector<int64_t>();
    CHECK(std::set<int64_t>(int8s.begin(), int8s.end()).size() == 256);
    CHECK(ops::randint(5, 6, {100}).to_vector<int64_t>() == std::vector<int64_t>(100, 5));
    // The widest range: the 64-bit multiply-high keeps every value inside and reaches both halves.
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    const auto wide = ops::randint(kMin, int64_t{1} << 62, {10000}).to_vector<int64_t>();
    CHECK(*std::max_element(wide.begin(), wide.end()) < (int64_t{1} << 62));
    CHECK(std::count_if(wide.begin(), wide.end(), [](int64_t v) { return v < 0; }) > 6000);
    CHECK(std::count_if(wide.begin(), wide.end(), [](int64_t v) { return v >= 0; }) > 2000);
}

TEST_CASE("random: permutation", "[random]") {
    seed(9);
    const Array p = ops::permutation(1000);
    CHECK(p.dtype() == Dtype::kInt64);
    const auto v = p.to_vector<int64_t>();
    std::vector<int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> iota(1000);
    for (int64_t i = 0; i < 1000; ++i) iota[static_cast<size_t>(i)] = i;
    CHECK(sorted == iota);
    CHECK(v != iota);
    seed(9);
    CHECK(ops::permutation(1000).to_vector<int64_t>() == v);
    CHECK(ops::permutation(1000).to_vector<int64_t>() != v);
    CHECK(ops::permutation(0).size() == 0);
    CHECK(ops::permutation(1).to_vector<int64_t>() == std::vector<int64_t>{0});
}

TEST_CASE("random: shapes", "[random]") {
    CHECK(ops::uniform({2, 3, 4}).shape() == Shape{2, 3, 4});
    CHECK(ops::normal({}).shape() == Shape{});
    CHECK(ops::uniform({0, 5}).size() == 0);
    CHECK_THROWS_AS(ops::uniform({-1}), ValueError);
}

TEST_CASE("random: invalid arguments", "[random]") {
    using Catch::Matchers::Contains;
    CHECK_THROWS_AS(ops::uniform({2}, 0, 1, Dtype::kInt32), DtypeError);
    CHECK_THROWS_WITH(ops::uniform({2}, 0, 1, Dtype::kInt32), Contains("uniform") && Contains("int32"));
    CHECK_THROWS_AS(ops::uniform({2}, 1, 1), ValueError);
    CHECK_THROWS_WITH(ops::uniform({2}, 2, 1), Contains("uniform") && Contains("low=2"));
    CHECK_THROWS_AS(ops::uniform({2}, 0, std::numeric_limits<double>::infinity()), ValueError);
    CHECK_THROWS_AS(ops::uniform({2}, std::nan(""), 1), ValueError);
    CHECK_THROWS_AS(ops::normal({2}, 0, 1, Dtype::kBool), DtypeError);
    CHECK_THROWS_WITH(ops::normal({2}, 0, -1), Contains("normal") && Contains("-1"));
    CHECK_THROWS_AS(ops::normal({2}, 0, -1), ValueError);
    CHECK_THROWS_AS(ops::normal({2}, 0, std::nan("")), ValueError);
    CHECK_THROWS_AS(ops::normal({2}, std::numeric_limits<double>::infinity(), 1), ValueError);
    CHECK_THROWS_AS(ops::bernoulli({2}, 1.5), ValueError);
    CHECK_THROWS_AS(ops::bernoulli({2}, -0.1), ValueError);
    CHECK_THROWS_WITH(ops::bernoulli({2}, std::nan("")), Contains("bernoulli"));
    CHECK_THROWS_AS(ops::randint(0, 5, {2}, Dtype::kFloat32), DtypeError);
    CHECK_THROWS_AS(ops::randint(0, 2, {2}, Dtype::kBool), DtypeError);
    CHECK_THROWS_AS(ops::randint(3, 3, {2}), ValueError);
    CHECK_THROWS_WITH(ops::randint(4, 3, {2}), Contains("randint") && Contains("low=4"));
    CHECK_THROWS_WITH(ops::randint(0, 257, {2}, Dtype::kUInt8), Contains("randint") && Contains("uint8"));
    CHECK_THROWS_AS(ops::randint(-129, 0, {2}, Dtype::kInt8), ValueError);
    CHECK_THROWS_AS(ops::randint(0, (int64_t{1} << 31) + 1, {2}, Dtype::kInt32), ValueError);
    CHECK_THROWS_AS(ops::randint(0, (int64_t{1} << 60) + 1, {2}), ValueError);  // not exact as float64
    CHECK_THROWS_WITH(ops::permutation(-1), Contains("permutation") && Contains("-1"));
    CHECK_THROWS_AS(ops::permutation(-1), ValueError);
}
