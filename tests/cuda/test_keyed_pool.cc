// The pools behind cuda::Stream and the per-thread cuBLAS/cuDNN handles (Note [Leaked
// pools] in cuda/keyed_pool.h): host logic, run without a GPU on plain ints.
#include <catch2/catch.hpp>
#include <latch>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/keyed_pool.h"

namespace rensa::cuda {
namespace {

// Makes 100, 101, ... and counts the calls.
struct Maker {
    int next = 100;
    int calls = 0;
    int operator()() {
        ++calls;
        return next++;
    }
};

TEST_CASE("cuda keyed pool: makes when empty, reuses what was given back, last first", "[cuda][host]") {
    KeyedPool<std::pair<int, int>, int> pool;
    Maker make;
    const int a = pool.take({0, 0}, std::ref(make));
    const int b = pool.take({0, 0}, std::ref(make));
    CHECK(a != b);
    CHECK(make.calls == 2);
    pool.give_back({0, 0}, a);
    pool.give_back({0, 0}, b);
    CHECK(pool.free_count({0, 0}) == 2);
    CHECK(pool.take({0, 0}, std::ref(make)) == b);  // LIFO
    CHECK(pool.take({0, 0}, std::ref(make)) == a);
    CHECK(make.calls == 2);
    CHECK(pool.free_count({0, 0}) == 0);
}

TEST_CASE("cuda keyed pool: keys never share objects", "[cuda][host]") {
    KeyedPool<std::pair<int, int>, int> pool;
    Maker make;
    const int on_device0 = pool.take({0, 0}, std::ref(make));
    pool.give_back({0, 0}, on_device0);
    // Another device, or another priority of the same device, gets a new object.
    CHECK(pool.take({1, 0}, std::ref(make)) != on_device0);
    CHECK(pool.take({0, -1}, std::ref(make)) != on_device0);
    CHECK(make.calls == 3);
    CHECK(pool.free_count({0, 0}) == 1);
    CHECK(pool.take({0, 0}, std::ref(make)) == on_device0);
}

TEST_CASE("cuda keyed pool: a throwing make leaves the pool unchanged", "[cuda][host]") {
    KeyedPool<int, int> pool;
    CHECK_THROWS_AS(pool.take(0, []() -> int { throw std::runtime_error{"no handle"}; }), std::runtime_error);
    CHECK(pool.free_count(0) == 0);
    pool.give_back(0, 7);
    CHECK(pool.take(0, []() -> int { throw std::runtime_error{"not called"}; }) == 7);
}

TEST_CASE("cuda keyed pool: concurrent users never hold the same object", "[cuda][host]") {
    KeyedPool<int, int> pool;
    std::mutex made_mutex;
    int made = 0;
    auto make = [&] {
        const std::lock_guard lock{made_mutex};
        return made++;
    };
    constexpr int kThreads = 8;
    std::mutex held_mutex;
    std::set<int> held;
    int clashes = 0;
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 2000; ++i) {
                const int value = pool.take(0, make);
                {
                    const std::lock_guard lock{held_mutex};
                    if (!held.insert(value).second) ++clashes;
                }
                {
                    const std::lock_guard lock{held_mutex};
                    held.erase(value);
                }
                pool.give_back(0, value);
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK(clashes == 0);
    CHECK(made <= kThreads);  // never more objects than users at once
    CHECK(pool.free_count(0) == static_cast<size_t>(made));
}

TEST_CASE("cuda thread slots: one object per key per thread, given back at the thread's exit", "[cuda][host]") {
    KeyedPool<int, int> pool;
    Maker make;
    int first = -1, second = -1, again = -1, other_key = -1;
    {
        ThreadSlots<int, 4> slots{pool};
        first = slots.get(1, std::ref(make));
        CHECK(slots.get(1, std::ref(make)) == first);  // kept, not taken again
        other_key = slots.get(3, std::ref(make));
        CHECK(other_key != first);
        CHECK(make.calls == 2);
        CHECK(pool.free_count(1) == 0);
    }
    CHECK(pool.free_count(1) == 1);  // the destructor gave both back
    CHECK(pool.free_count(3) == 1);
    // Two threads alive together get different objects; a thread started after they ended
    // takes the one given back last instead of making another.
    std::latch both_have{2};
    auto hold = [&](int& out) {
        thread_local ThreadSlots<int, 4> slots{pool};
        out = slots.get(1, std::ref(make));
        both_have.arrive_and_wait();
    };
    std::thread a{hold, std::ref(second)};
    std::thread b{hold, std::ref(again)};
    a.join();
    b.join();
    CHECK(second != again);
    CHECK((second == first || again == first));  // one of them reused the freed object
    CHECK(make.calls == 3);
    CHECK(pool.free_count(1) == 2);
    int later = -1;
    std::thread{[&] {
        thread_local ThreadSlots<int, 4> slots{pool};
        later = slots.get(1, std::ref(make));
    }}.join();
    CHECK((later == second || later == again));
    int after_later = -1;
    std::thread{[&] {
        thread_local ThreadSlots<int, 4> slots{pool};
        after_later = slots.get(1, std::ref(make));
    }}.join();
    CHECK(after_later == later);  // the last given back
    CHECK(make.calls == 3);
    CHECK(pool.free_count(1) == 2);
}

}  // namespace
}  // namespace rensa::cuda
