#pragma once
// Helpers of the MPI benchmarks (benchmarks/distributed/bench_allreduce.cc,
// benchmarks/scaling/bench_scaling_comm.cc): the slowest rank's time of one call, medians,
// named sides whose calls alternate, and parameters with zero grads to reduce.

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/array.h"
#include "links/chain.h"

namespace bench {

// Adds a float32 parameter of `n` zeros to `link`, with a grad of zeros (sums of zeros stay
// finite however often they are reduced).
inline void add_zero_param(rensa::links::Chain& link, const std::string& name, int64_t n) {
    const rensa::Array value = rensa::Array::empty({n}, rensa::Dtype::kFloat32);
    value.fill(0.0f);
    const auto& param = link.add_param(name, rensa::links::Parameter(value));
    const rensa::Array grad = rensa::Array::empty({n}, rensa::Dtype::kFloat32);
    grad.fill(0.0f);
    param.set_grad(grad);
}

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
