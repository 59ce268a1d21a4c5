#pragma once
// Pools of reusable CUDA library objects (streams, cuBLAS and cuDNN handles): host logic
// only, no CUDA call, so it is tested without a GPU (tests/cuda/test_keyed_pool.cc).
//
// Note [Leaked pools]: the objects are never destroyed. cudaStreamDestroy, cublasDestroy
// and cudnnDestroy at static-destruction or thread-exit time may run after the CUDA
// runtime has unloaded, and crash; the driver reclaims everything at exit. So an object
// no longer wanted goes back to a pool that is itself leaked (made with new, never
// deleted), and the next request for the same key takes it instead of making another:
// the number of objects ever made is the most ever in use at once.

#include <array>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "core/error.h"

namespace rensa::cuda {

// Free objects of type T by key. Thread-safe. T is a small handle (copied freely).
template <class Key, class T>
class KeyedPool {
public:
    // A free object of `key`, the one given back last (LIFO), else `make()`'s. make runs
    // without the lock held; if it throws, the exception propagates and the pool is unchanged.
    template <class Make>
    T take(const Key& key, Make&& make) {
        {
            const std::lock_guard lock{mutex_};
            const auto it = free_.find(key);
            if (it != free_.end() && !it->second.empty()) {
                const T value = it->second.back();
                it->second.pop_back();
                return value;
            }
        }
        return std::forward<Make>(make)();
    }

    // Makes `value` (an object of `key`) the next one take(key) returns. Never throws: out of
    // host memory, the object is leaked instead (see Note [Leaked pools]).
    void give_back(const Key& key, const T& value) noexcept {
        try {
            const std::lock_guard lock{mutex_};
            free_[key].push_back(value);
        } catch (...) {  // NOLINT(bugprone-empty-catch): leaking is the documented fallback
        }
    }

    // How many objects of `key` wait in the pool.
    size_t free_count(const Key& key) const {
        const std::lock_guard lock{mutex_};
        const auto it = free_.find(key);
        return it == free_.end() ? 0 : it->second.size();
    }

private:
    mutable std::mutex mutex_;
    std::map<Key, std::vector<T>> free_;
};

// One object per key in [0, N) (a device index) for one owner, typically a thread_local:
// taken from `pool` on the first get of that key, kept for the owner's life, and given back
// to the pool by the destructor (at the thread's exit for a thread_local).
template <class T, size_t N>
class ThreadSlots {
public:
    explicit ThreadSlots(KeyedPool<int, T>& pool) : pool_{&pool} {}
    ~ThreadSlots() {
        for (size_t i = 0; i < N; ++i) {
            if (slots_[i]) pool_->give_back(static_cast<int>(i), *slots_[i]);
        }
    }
    ThreadSlots(const ThreadSlots&) = delete;
    ThreadSlots& operator=(const ThreadSlots&) = delete;

    // The object of `key` (0 <= key < N), taken from the pool (or made by `make`) on first use.
    template <class Make>
    T get(int key, Make&& make) {
        RENSA_ASSERT(key >= 0 && static_cast<size_t>(key) < N);
        std::optional<T>& slot = slots_[static_cast<size_t>(key)];
        if (!slot) slot = pool_->take(key, std::forward<Make>(make));
        return *slot;
    }

private:
    KeyedPool<int, T>* pool_;
    std::array<std::optional<T>, N> slots_{};
};

}  // namespace rensa::cuda
