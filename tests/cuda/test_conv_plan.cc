// The cuDNN-or-direct decisions of Note [Convolution fallback] (cuda/conv_plan.h), with
// fake candidate lists and fake runs: host logic, no GPU needed.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <latch>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/conv_plan.h"

namespace rensa::cuda {
namespace {

// A fake problem: candidates are algorithms 0, 1, ... n - 1; `runnable` says which can run.
struct FakeProblem {
    explicit FakeProblem(std::vector<bool> can_run) : runnable{std::move(can_run)} {}

    std::vector<bool> runnable;
    int list_calls = 0;
    std::vector<int> tried;
    int reports = 0;

    ConvPlanCache::ListFn list() {
        return [this] {
            ++list_calls;
            std::vector<ConvAlgorithm> out;
            for (size_t i = 0; i < runnable.size(); ++i) out.push_back({.algo = static_cast<int>(i)});
            return out;
        };
    }
    ConvPlanCache::TryFn try_run() {
        return [this](const ConvAlgorithm& a) {
            tried.push_back(a.algo);
            return runnable[static_cast<size_t>(a.algo)] ? ConvRun::kRan : ConvRun::kCannotRun;
        };
    }
    ConvPlanCache::ReportFn report() {
        return [this] { ++reports; };
    }
    bool run(ConvPlanCache& cache, const ConvPlanCache::Key& key) {
        return cache.run(key, list(), try_run(), report());
    }
};

TEST_CASE("cuda conv plan: the first candidate that runs is cached", "[cuda][host]") {
    ConvPlanCache cache;
    FakeProblem p{{true, true}};
    CHECK(p.run(cache, {1}));
    CHECK(p.run(cache, {1}));
    CHECK(p.list_calls == 1);  // listed once per key
    CHECK(p.tried == std::vector<int>{0, 0});
    REQUIRE(cache.current({1}));
    CHECK(cache.current({1})->algo == 0);
    CHECK(p.reports == 0);
}

TEST_CASE("cuda conv plan: a candidate that cannot run is dropped for the next one", "[cuda][host]") {
    ConvPlanCache cache;
    FakeProblem p{{false, false, true, true}};
    CHECK(p.run(cache, {2}));
    CHECK(p.tried == std::vector<int>{0, 1, 2});  // walked on within the same call
    p.tried.clear();
    CHECK(p.run(cache, {2}));
    CHECK(p.tried == std::vector<int>{2});  // the one that ran stays the choice
    CHECK(cache.current({2})->algo == 2);
    CHECK_FALSE(cache.is_direct({2}));
    CHECK(p.reports == 0);
}

TEST_CASE("cuda conv plan: no runnable candidate caches direct and reports once", "[cuda][host]") {
    ConvPlanCache cache;
    FakeProblem p{{false, false, false}};
    CHECK_FALSE(p.run(cache, {3}));
    CHECK(p.tried == std::vector<int>{0, 1, 2});
    CHECK(p.reports == 1);
    CHECK(cache.is_direct({3}));
    CHECK_FALSE(cache.current({3}));
    for (int i = 0; i < 3; ++i) CHECK_FALSE(p.run(cache, {3}));
    CHECK(p.tried.size() == 3);  // nothing tried again
    CHECK(p.list_calls == 1);
    CHECK(p.reports == 1);  // never again for this key
}

TEST_CASE("cuda conv plan: an empty candidate list is direct, reported once per key", "[cuda][host]") {
    ConvPlanCache cache;
    FakeProblem p{{}};
    CHECK_FALSE(p.run(cache, {4}));
    CHECK_FALSE(p.run(cache, {4}));
    CHECK(p.reports == 1);
    CHECK(p.tried.empty());
    // Another key is another problem: its own list, its own line.
    CHECK_FALSE(p.run(cache, {4, 1}));
    CHECK(p.reports == 2);
    CHECK(p.list_calls == 2);
    FakeProblem q{{true}};
    CHECK(q.run(cache, {5}));
    CHECK_FALSE(cache.is_direct({5}));
    CHECK_FALSE(cache.is_direct({6}));  // unknown keys are not direct
    CHECK_FALSE(cache.current({6}));
}

TEST_CASE("cuda conv plan: failures propagate and leave the key as it was", "[cuda][host]") {
    ConvPlanCache cache;
    FakeProblem p{{false, true}};
    CHECK_THROWS_AS(cache.run(
                        {7}, []() -> std::vector<ConvAlgorithm> { throw std::runtime_error{"heuristics failed"}; },
                        p.try_run(), p.report()),
                    std::runtime_error);
    CHECK_FALSE(cache.current({7}));  // nothing cached: the next call lists again
    int calls = 0;
    auto failing = [&](const ConvAlgorithm& a) -> ConvRun {
        ++calls;
        if (a.algo == 1) throw std::runtime_error{"execution failed"};
        return ConvRun::kCannotRun;
    };
    CHECK_THROWS_AS(cache.run({7}, p.list(), failing, p.report()), std::runtime_error);
    CHECK(calls == 2);
    CHECK(cache.current({7})->algo == 1);  // 0 was dropped, 1 failed for another reason: kept
    CHECK(p.run(cache, {7}));
    CHECK(p.tried == std::vector<int>{1});
    CHECK(p.reports == 0);
}

TEST_CASE("cuda conv plan: racing threads report a direct key once and agree on the choice", "[cuda][host]") {
    for (const bool any_runs : {false, true}) {
        ConvPlanCache cache;
        std::atomic<int> reports{0}, ran{0}, tries{0};
        auto list = [] { return std::vector<ConvAlgorithm>{{.algo = 0}, {.algo = 1}, {.algo = 2}}; };
        auto try_run = [&](const ConvAlgorithm& a) {
            ++tries;
            if (any_runs && a.algo == 2) return ConvRun::kRan;
            std::this_thread::sleep_for(std::chrono::milliseconds{2});  // failures overlap across threads
            return ConvRun::kCannotRun;
        };
        std::latch start{8};
        std::vector<std::thread> threads;
        threads.reserve(8);
        for (int t = 0; t < 8; ++t) {
            threads.emplace_back([&] {
                start.arrive_and_wait();
                for (int i = 0; i < 200; ++i) {
                    if (cache.run({8}, list, try_run, [&] { ++reports; })) ++ran;
                }
            });
        }
        for (std::thread& thread : threads) thread.join();
        INFO("any_runs " << any_runs);
        CHECK(reports.load() == (any_runs ? 0 : 1));
        CHECK(ran.load() == (any_runs ? 1600 : 0));
        CHECK(cache.is_direct({8}) == !any_runs);
        // Each thread tries each failing candidate at most once before the key settles.
        CHECK(tries.load() <= (any_runs ? 1600 + 8 * 2 : 8 * 3));
    }
}

TEST_CASE("cuda conv plan: which cuDNN statuses mean the algorithm cannot run", "[cuda][host]") {
    CHECK(cudnn_cannot_run(CUDNN_STATUS_NOT_SUPPORTED));
    CHECK(cudnn_cannot_run(CUDNN_STATUS_NOT_SUPPORTED_SHAPE));
    CHECK(cudnn_cannot_run(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT));
    CHECK(cudnn_cannot_run(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER));
    CHECK_FALSE(cudnn_cannot_run(CUDNN_STATUS_SUCCESS));
    CHECK_FALSE(cudnn_cannot_run(CUDNN_STATUS_BAD_PARAM));  // our bug: must throw, not hide
    CHECK_FALSE(cudnn_cannot_run(CUDNN_STATUS_BAD_PARAM_NULL_POINTER));
    CHECK_FALSE(cudnn_cannot_run(CUDNN_STATUS_INTERNAL_ERROR));
    CHECK_FALSE(cudnn_cannot_run(CUDNN_STATUS_EXECUTION_FAILED));
}

TEST_CASE("cuda conv plan: the common alignment of the buffers", "[cuda][host]") {
    const auto at = [](uintptr_t address) {
        return reinterpret_cast<const void*>(address);  // NOLINT(performance-no-int-to-ptr): fake addresses
    };
    CHECK(common_alignment({at(4096), at(8192)}) == 256);  // capped
    CHECK(common_alignment({at(4096), at(4096 + 16)}) == 16);
    CHECK(common_alignment({at(4096 + 2), at(4096), at(512)}) == 2);
    CHECK(common_alignment({at(4096 + 1)}) == 1);
    CHECK(common_alignment({at(64)}, 32) == 32);
    CHECK(common_alignment({nullptr, nullptr}) == 256);
}

TEST_CASE("cuda conv plan: the fallback line names the device, direction, dtype and shapes", "[cuda][host]") {
    const ConvShapes shapes{.dtype = Dtype::kFloat32,
                            .x = {2, 3, 5, 5},
                            .w = {4, 3, 2, 2},
                            .y = {2, 4, 4, 4},
                            .stride = {1, 1},
                            .pad = {0, 0},
                            .dilate = {1, 1},
                            .groups = 1};
    const std::string line = conv_fallback_message(ConvDirection::kForward, 0, shapes);
    CHECK(line ==
          "rensa: cuda:0 convolution forward float32 x(2, 3, 5, 5) w(4, 3, 2, 2) y(2, 4, 4, 4) stride (1, 1) pad "
          "(0, 0) dilate (1, 1) groups 1 has no cuDNN algorithm that runs; running the direct kernels (slow)");
    CHECK(line.find('\n') == std::string::npos);  // one line
    CHECK_THAT(conv_fallback_message(ConvDirection::kBackwardFilter, 1, shapes),
               Catch::StartsWith("rensa: cuda:1 convolution backward filter float32"));
    CHECK_THAT(conv_fallback_message(ConvDirection::kBackwardData, 0, shapes),
               Catch::StartsWith("rensa: cuda:0 convolution backward data float32"));
}

}  // namespace
}  // namespace rensa::cuda
