#include "training/iterators/thread_pool.h"

#include <utility>

#include "core/error.h"

namespace rensa::training::iterators::detail {

ThreadPool::ThreadPool(int n_threads) {
    RENSA_ASSERT(n_threads >= 1);
    threads_.reserve(static_cast<size_t>(n_threads));
    for (int i = 0; i < n_threads; ++i) threads_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
    {
        const std::lock_guard<std::mutex> lock{mutex_};
        stopping_ = true;
        queue_.clear();
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

std::future<std::vector<Example>> ThreadPool::submit(std::function<std::vector<Example>()> task) {
    std::packaged_task<std::vector<Example>()> packaged{std::move(task)};
    std::future<std::vector<Example>> result = packaged.get_future();
    {
        const std::lock_guard<std::mutex> lock{mutex_};
        queue_.push_back(std::move(packaged));
    }
    wake_.notify_one();
    return result;
}

void ThreadPool::cancel_queued() {
    // Destroyed outside the lock: a task's captures may be large.
    std::deque<std::packaged_task<std::vector<Example>()>> dropped;
    {
        const std::lock_guard<std::mutex> lock{mutex_};
        dropped.swap(queue_);
    }
}

void ThreadPool::work() {
    for (;;) {
        std::packaged_task<std::vector<Example>()> task;
        {
            std::unique_lock<std::mutex> lock{mutex_};
            wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (stopping_) return;
            task = std::move(queue_.front());
            queue_.pop_front();
        }
        task();  // stores the result or the exception in the task's future
    }
}

}  // namespace rensa::training::iterators::detail
