#include <catch2/catch.hpp>
#include <chrono>

#include "core/error.h"
#include "tests/training/iterators/iterator_testing.h"
#include "training/iterators/iterators.h"

namespace rensa {
namespace {

using testing::IndexDataset;
using training::iterators::MultithreadIterator;
using training::iterators::MultithreadIteratorOptions;
using training::iterators::SerialIterator;
using training::iterators::ShuffleOrderSampler;
using Indices = std::vector<int64_t>;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

TEST_CASE("MultithreadIterator: the same batches and counters as SerialIterator", "[training][iterators]") {
    for (const int n_threads : {1, 2, 3}) {
        for (const int64_t batch_size : {int64_t{1}, int64_t{4}, int64_t{5}, int64_t{13}}) {
            for (const bool repeat : {true, false}) {
                INFO("n_threads " << n_threads << " batch_size " << batch_size << " repeat " << repeat);
                const auto dataset = std::make_shared<IndexDataset>(10);
                MultithreadIterator mt{dataset,
                                       batch_size,
                                       {.repeat = repeat,
                                        .order_sampler = std::make_shared<ShuffleOrderSampler>(17),
                                        .n_threads = n_threads}};
                SerialIterator serial{dataset,
                                      batch_size,
                                      {.repeat = repeat, .order_sampler = std::make_shared<ShuffleOrderSampler>(17)}};
                CHECK(mt.n_threads() == n_threads);
                CHECK(*mt.order() == *serial.order());
                for (int k = 0; k < 40; ++k) {
                    const auto a = mt.next();
                    const auto b = serial.next();
                    REQUIRE(a.has_value() == b.has_value());
                    if (a) CHECK(testing::batch_indices(*a) == testing::batch_indices(*b));
                    CHECK(mt.epoch() == serial.epoch());
                    CHECK(mt.epoch_detail() == serial.epoch_detail());
                    CHECK(mt.previous_epoch_detail() == serial.previous_epoch_detail());
                    CHECK(mt.is_new_epoch() == serial.is_new_epoch());
                    CHECK(mt.current_position() == serial.current_position());
                }
                // reset: both draw the same new order (the sampler was never ahead).
                mt.reset();
                serial.reset();
                CHECK(*mt.order() == *serial.order());
                CHECK(testing::take_batches(mt, 7) == testing::take_batches(serial, 7));
            }
        }
    }
}

TEST_CASE("MultithreadIterator: without shuffle and with reset discarding the prefetch", "[training][iterators]") {
    const auto dataset = std::make_shared<IndexDataset>(10);
    MultithreadIterator it{dataset, 4, {.shuffle = false}};
    CHECK(testing::take_batches(it, 2) == std::vector<Indices>{{0, 1, 2, 3}, {4, 5, 6, 7}});
    it.reset();  // the prefetched {8, 9, 0, 1} is dropped
    CHECK(it.epoch_detail() == 0.0);
    CHECK_FALSE(it.previous_epoch_detail());
    CHECK(testing::take_batches(it, 3) == std::vector<Indices>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 0, 1}});
    CHECK(it.epoch() == 1);
    CHECK(it.is_new_epoch());
}

TEST_CASE("MultithreadIterator: a dataset error is rethrown from next", "[training][iterators]") {
    for (const int n_threads : {1, 2, 4}) {
        INFO("n_threads " << n_threads);
        MultithreadIterator it{
            std::make_shared<IndexDataset>(10, std::set<int64_t>{5}), 4, {.shuffle = false, .n_threads = n_threads}};
        CHECK(testing::take_batches(it, 1) == std::vector<Indices>{{0, 1, 2, 3}});
        CHECK_THROWS_WITH(it.next(), Catch::Contains("example 5 fails"));
        // As SerialIterator: the failed batch counts as consumed.
        CHECK(it.epoch_detail() == Approx(0.8));
        CHECK(testing::take_batches(it, 1) == std::vector<Indices>{{8, 9, 0, 1}});
    }
    MultithreadIterator it{std::make_shared<IndexDataset>(10, std::set<int64_t>{5}), 4, {.shuffle = false}};
    (void)testing::take_batches(it, 1);
    CHECK_THROWS_AS(it.next(), IOError);
    CHECK(testing::take_batches(it, 1) == std::vector<Indices>{{8, 9, 0, 1}});
    CHECK_THROWS_AS(it.next(), IOError);  // {2, 3, 4, 5} holds 5 again
    CHECK(testing::take_batches(it, 1) == std::vector<Indices>{{6, 7, 8, 9}});
}

TEST_CASE("MultithreadIterator: fetches a batch while the previous one is used", "[training][iterators]") {
    const auto dataset = std::make_shared<IndexDataset>(40, std::set<int64_t>{}, std::chrono::milliseconds{20});
    MultithreadIterator it{dataset, 8, {.shuffle = false, .n_threads = 4}};
    (void)it.next();
    // Give the pool time to fetch the next batch in the background, then it comes at once.
    std::this_thread::sleep_for(std::chrono::milliseconds{600});
    CHECK(dataset->examples_read.load() == 16);
    const auto start = Clock::now();
    const auto batch = it.next();
    CHECK(seconds_since(start) < 0.1);
    REQUIRE(batch);
    CHECK(testing::batch_indices(*batch) == Indices{8, 9, 10, 11, 12, 13, 14, 15});
    CHECK(dataset->calls.load() >= 4);  // slices of one batch on several threads
}

TEST_CASE("MultithreadIterator: finalize and the destructor with pending work", "[training][iterators]") {
    const auto dataset = std::make_shared<IndexDataset>(64, std::set<int64_t>{}, std::chrono::milliseconds{30});
    {
        MultithreadIterator it{dataset, 16, {.shuffle = false, .n_threads = 2}};
        (void)it.next();  // the next 16 examples (8 per thread, 240 ms) are being fetched
        const auto start = Clock::now();
        it.finalize();
        it.finalize();  // twice is fine
        // Only the examples already running are waited for; queued work is dropped.
        CHECK(seconds_since(start) < 2.0);
        // A later next() starts again from the right place.
        const auto batch = it.next();
        REQUIRE(batch);
        CHECK(testing::batch_indices(*batch)[0] == 16);
        CHECK(it.epoch_detail() == Approx(0.5));
    }
    const auto start = Clock::now();
    {
        MultithreadIterator it{dataset, 16, {.shuffle = false, .n_threads = 2}};
        (void)it.next();
    }  // destroyed with a prefetch in flight
    CHECK(seconds_since(start) < 3.0);
    {
        MultithreadIterator unused{dataset, 16};  // no thread ever started
        unused.finalize();
    }
    MultithreadIterator failing{std::make_shared<IndexDataset>(10, std::set<int64_t>{3}), 5, {.shuffle = false}};
    CHECK_THROWS_AS(failing.next(), IOError);
    (void)failing.next();  // the prefetch after an error is cleaned up by the destructor too
}

TEST_CASE("MultithreadIterator: argument errors", "[training][iterators]") {
    const auto dataset = std::make_shared<IndexDataset>(10);
    CHECK_THROWS_AS(MultithreadIterator(dataset, 0), ValueError);
    CHECK_THROWS_WITH(MultithreadIterator(dataset, 2, {.n_threads = 0}), Catch::Contains("n_threads"));
    CHECK_THROWS_AS(MultithreadIterator(std::make_shared<IndexDataset>(0), 2), ValueError);
    MultithreadIterator empty{std::make_shared<IndexDataset>(0), 2, {.repeat = false}};
    CHECK_FALSE(empty.next());
    CHECK_FALSE(empty.next());
}

}  // namespace rensa
