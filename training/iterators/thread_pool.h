#pragma once
// A small fixed pool of threads that fetch examples for MultithreadIterator.

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "training/dataset.h"

namespace rensa::training::iterators::detail {

class ThreadPool {
public:
    // Starts `n_threads` (>= 1) workers.
    explicit ThreadPool(int n_threads);
    // Drops the tasks not started yet and joins the workers (waiting for running tasks).
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // Runs `task` on a worker; the future holds its result or its exception.
    [[nodiscard]] std::future<std::vector<Example>> submit(std::function<std::vector<Example>()> task);
    // Drops the tasks not started yet (their futures are abandoned).
    void cancel_queued();

private:
    void work();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::packaged_task<std::vector<Example>()>> queue_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace rensa::training::iterators::detail
