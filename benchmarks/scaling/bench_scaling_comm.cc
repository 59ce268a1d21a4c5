// All-reduce time per message size for the scaling model (benchmarks/scaling/README.md):
// float32 messages of 4 KiB to 256 MiB (powers of two) on every rank, through
//   mpi     MPI_Allreduce(MPI_IN_PLACE, float, MPI_SUM) on a dup of MPI_COMM_WORLD;
//   flat    create_communicator("flat")->multi_node_mean_grad(link), `link` holding one
//           float32 parameter of that many bytes with a grad: the gradient-bucket path that
//           training takes (one bucket, reduced in place, the mean inside the reduction);
//   naive   the same through create_communicator("naive").
// The calls alternate (mpi, flat, naive, mpi, ...) so load changes hit every side alike; each
// figure is the median over the calls of the slowest rank's time, all ranks starting after a
// barrier. The number of calls per size follows from a warm-up call (the same on all ranks).
//   mpiexec -n N bench_scaling_comm [--min-bytes 4096] [--max-bytes 268435456] [--seconds 0.3]
// Rank 0 prints one JSON line per size: {"bytes": B, "processes": N, "calls": C, "mpi_s": ...,
// "flat_s": ..., "naive_s": ...}. Run it with OMP_NUM_THREADS=1 (benchmarks/scaling/run.py does).

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/distributed/mpi_timing.h"
#include "core/array.h"
#include "distributed/communicator.h"
#include "links/chain.h"

namespace {

using rensa::Array;
using rensa::Dtype;
namespace dist = rensa::distributed;

struct Args {
    int64_t min_bytes = 4096;
    int64_t max_bytes = 256LL << 20;
    double seconds = 0.3;  // timed traffic per side and size (bounded by kMinCalls, kMaxCalls)
};

constexpr int kMinCalls = 7;
constexpr int kMaxCalls = 400;

Args parse_args(int argc, char** argv) {
    Args args;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--min-bytes") args.min_bytes = std::stoll(value);
        if (key == "--max-bytes") args.max_bytes = std::stoll(value);
        if (key == "--seconds") args.seconds = std::stod(value);
    }
    return args;
}

// A link with one float32 parameter of `n` elements whose grad is set (zeros).
std::shared_ptr<rensa::links::Chain> one_param_link(int64_t n) {
    auto link = std::make_shared<rensa::links::Chain>();
    bench::add_zero_param(*link, "w", n);
    return link;
}

using bench::median;
using bench::Sides;
using bench::time_call;

Sides make_sides(MPI_Comm raw, const dist::CommunicatorPtr& flat, const dist::CommunicatorPtr& naive, int64_t n) {
    const Array raw_buffer = Array::empty({n}, Dtype::kFloat32);
    raw_buffer.fill(0.0f);
    auto flat_link = one_param_link(n);
    auto naive_link = one_param_link(n);
    Sides sides;
    sides.names = {"mpi", "flat", "naive"};
    sides.ops.emplace_back([raw, raw_buffer, n] {
        MPI_Allreduce(MPI_IN_PLACE, raw_buffer.raw_data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, raw);
    });
    sides.ops.emplace_back([flat, flat_link] { flat->multi_node_mean_grad(*flat_link); });
    sides.ops.emplace_back([naive, naive_link] { naive->multi_node_mean_grad(*naive_link); });
    return sides;
}

// Calls per side: about `seconds` of traffic, judged from the slowest warm-up call.
int calls_for(MPI_Comm raw, const Sides& sides, double seconds) {
    double slowest = 0.0;
    for (const auto& op : sides.ops) op();  // first call: buckets, shared memory, MPI state
    for (const auto& op : sides.ops) slowest = std::max(slowest, time_call(raw, op));
    return std::clamp(static_cast<int>(seconds / std::max(slowest, 1e-7)), kMinCalls, kMaxCalls);
}

// The median seconds of each side, calls alternating between the sides.
std::vector<double> measure(MPI_Comm raw, const Sides& sides, int calls) {
    std::vector<std::vector<double>> times(sides.ops.size());
    for (int c = 0; c < calls; ++c) {
        for (size_t s = 0; s < sides.ops.size(); ++s) times[s].push_back(time_call(raw, sides.ops[s]));
    }
    std::vector<double> medians;
    for (auto& t : times) medians.push_back(median(t));
    return medians;
}

void report(int64_t bytes, int size, int calls, const Sides& sides, const std::vector<double>& seconds) {
    std::printf("{\"bytes\": %lld, \"processes\": %d, \"calls\": %d", static_cast<long long>(bytes), size, calls);
    for (size_t s = 0; s < sides.names.size(); ++s) std::printf(", \"%s_s\": %.6g", sides.names[s].c_str(), seconds[s]);
    std::printf("}\n");
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse_args(argc, argv);
    // The communicators initialise MPI (Note [MPI lifetime]); the raw side gets its own dup.
    const auto flat = dist::create_communicator("flat");
    const auto naive = dist::create_communicator("naive");
    MPI_Comm raw = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &raw);
    for (int64_t bytes = args.min_bytes; bytes <= args.max_bytes; bytes *= 2) {
        const Sides sides = make_sides(raw, flat, naive, bytes / 4);
        const int calls = calls_for(raw, sides, args.seconds);
        const std::vector<double> seconds = measure(raw, sides, calls);
        if (flat->rank() == 0) report(bytes, flat->size(), calls, sides, seconds);
    }
    MPI_Comm_free(&raw);
    return 0;
}
