#pragma once
// OpenMP helpers of the native backend: a loop runs on several threads only above a
// size threshold, and the number of threads follows OMP_NUM_THREADS.

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace rensa::native {

// Elements below which a loop stays on one thread (thread start-up costs more).
inline constexpr int64_t kParallelGrain = int64_t{1} << 15;

inline int max_threads() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

// Splits [0, n) into one contiguous range per thread (each at least `grain` long) and
// calls fn(begin, end) for each; the split depends only on n, grain and the thread count.
template <class Fn>
void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
    const int64_t threads = std::min<int64_t>(max_threads(), std::max<int64_t>(1, n / std::max<int64_t>(grain, 1)));
    if (threads <= 1) {
        if (n > 0) fn(int64_t{0}, n);
        return;
    }
#pragma omp parallel num_threads(static_cast <int>(threads))
    {
        const int64_t t = omp_get_thread_num();
        const int64_t nt = omp_get_num_threads();
        const int64_t begin = n * t / nt;
        const int64_t end = n * (t + 1) / nt;
        if (begin < end) fn(begin, end);
    }
}

}  // namespace rensa::native
