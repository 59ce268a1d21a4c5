#pragma once
// Timing helpers of the MPI benchmarks (benchmarks/distributed/bench_allreduce.cc,
// benchmarks/scaling/bench_scaling_comm.cc): the slowest rank's time of one call, medians,
// and named sides whose calls alternate.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// Seconds of the slowest rank for one call of `op`, all ranks starting together.
inline double time_call(MPI_Comm comm, const std::function<void()>& op) {
    MPI_Barrier(comm);
    const auto start = std::chrono::steady_clock::now();
    op();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    return seconds;
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The things compared in one run, by name; their calls alternate.
struct Sides {
    std::vector<std::string> names;
    std::vector<std::function<void()>> ops;
};

}  // namespace bench
