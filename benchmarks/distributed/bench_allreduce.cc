// Communicator all-reduce against raw MPI_Allreduce in the same run (issue 7, "Speed"):
// float32 messages of 1, 16 and 64 MiB on every rank, summed. The calls alternate
// (raw, naive, flat, flat mean_grad, raw, ...) so load changes hit every side alike; each
// figure is the median over the calls of the slowest rank's time, after a barrier.
//   mpiexec -n 2 bench_allreduce [--sizes 1,16,64] [--json]
// Prints a table (rank 0), or with --json one JSON line per size for benchmarks/distributed/run.py.
//
// Sides:
//   mpi         MPI_Allreduce(MPI_IN_PLACE, float, MPI_SUM) on a dup of MPI_COMM_WORLD;
//   naive       create_communicator("naive")->allreduce_inplace(buffer) (kSum);
//   flat        create_communicator("flat")->allreduce_inplace(buffer) (kSum);
//   mean_grad   create_communicator("flat")->multi_node_mean_grad(link): the same bytes as the
//               gradients of a model shaped like the MLP 784-1000-1000-10 (six arrays), through
//               the gradient buckets (after the first call backward would write the grads
//               into them; here the grads already are their slots).
//   mean_grad_bf16, mean_grad_fp16  the same with allreduce_grad_dtype bfloat16 / float16:
//               float32 grads cast into a half-size bucket, reduced, cast back.
// Bandwidth is the message size over the time (what the MPICH figures quote).
//
//   mpiexec -n 2 bench_allreduce --small [--small-elements N] [--json]
// The cost of the always-on signature check (Note [Signature check] in
// distributed/detail/signature_check.cc) on a 4-byte all-reduce (one float32, summed; N float32
// with --small-elements: past 8 the data no longer ride in the check's envelope). Sides: mpi
// (raw MPI_Allreduce), and the flat communicator's allreduce_inplace and allreduce with the check
// on and off (switched for the block on every rank: detail::set_signature_check, the
// measurement's switch). Each of 400 rounds runs a block of 250 calls of every side, in an order
// shuffled per round (the same on every rank), each block timed on the slowest rank and divided
// by its calls. Printed: each side's median, and the median over the rounds of on minus off
// within the round (the check's cost, with the load of the round common to both).

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "benchmarks/distributed/mpi_timing.h"
#include "core/array.h"
#include "distributed/communicator.h"
#include "distributed/detail/signature_check.h"
#include "links/chain.h"

namespace {

using rensa::Array;
using rensa::Dtype;
namespace dist = rensa::distributed;

struct Args {
    std::vector<int64_t> sizes_mib{1, 16, 64};
    bool json = false;
    bool small = false;
    int64_t small_elements = 1;
};

Args parse_args(int argc, char** argv) {
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--json") {
            args.json = true;
        } else if (a == "--small") {
            args.small = true;
        } else if (a == "--small-elements" && i + 1 < argc) {
            args.small_elements = std::stoll(argv[++i]);
        } else if (a == "--sizes" && i + 1 < argc) {
            args.sizes_mib.clear();
            std::stringstream list{argv[++i]};
            for (std::string item; std::getline(list, item, ',');) args.sizes_mib.push_back(std::stoll(item));
        }
    }
    return args;
}

// Calls per size: enough for a stable median, about a second of traffic per side.
int calls_for(int64_t mib) { return mib <= 1 ? 200 : mib <= 16 ? 40 : 15; }

// A link whose parameters have the MLP 784-1000-1000-10's proportions and `n` elements in
// all, each with a zero grad (sums of zeros stay finite however often they are reduced).
std::shared_ptr<rensa::links::Chain> model_like(int64_t n) {
    const std::vector<std::pair<std::string, int64_t>> mlp{{"l1/W", 784000}, {"l1/b", 1000},  {"l2/W", 1000000},
                                                           {"l2/b", 1000},   {"l3/W", 10000}, {"l3/b", 10}};
    const int64_t total = 1796010;
    auto link = std::make_shared<rensa::links::Chain>();
    int64_t used = 0;
    for (size_t i = 0; i < mlp.size(); ++i) {
        std::string name = mlp[i].first;
        std::replace(name.begin(), name.end(), '/', '_');
        const int64_t count = i + 1 == mlp.size() ? n - used : std::max<int64_t>(1, mlp[i].second * n / total);
        used += count;
        bench::add_zero_param(*link, name, count);
    }
    return link;
}

using bench::median;
using bench::Sides;
using bench::time_call;

struct Comms {
    dist::CommunicatorPtr naive, flat, flat_bf16, flat_fp16;
};

Sides make_sides(MPI_Comm raw, const Comms& comms, int64_t n) {
    const dist::CommunicatorPtr& naive = comms.naive;
    const dist::CommunicatorPtr& flat = comms.flat;
    const dist::CommunicatorPtr& flat_bf16 = comms.flat_bf16;
    const dist::CommunicatorPtr& flat_fp16 = comms.flat_fp16;
    const Array raw_buffer = Array::empty({n}, Dtype::kFloat32);
    raw_buffer.fill(0.0f);
    const Array naive_buffer = raw_buffer.copy();
    const Array flat_buffer = raw_buffer.copy();
    auto link = model_like(n);
    auto link_bf16 = model_like(n);
    auto link_fp16 = model_like(n);
    Sides sides;
    sides.names = {"mpi", "naive", "flat", "mean_grad", "mean_grad_bf16", "mean_grad_fp16"};
    sides.ops.emplace_back([raw, raw_buffer, n] {
        MPI_Allreduce(MPI_IN_PLACE, raw_buffer.raw_data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, raw);
    });
    sides.ops.emplace_back([naive, naive_buffer] { naive->allreduce_inplace(naive_buffer); });
    sides.ops.emplace_back([flat, flat_buffer] { flat->allreduce_inplace(flat_buffer); });
    sides.ops.emplace_back([flat, link] { flat->multi_node_mean_grad(*link); });
    sides.ops.emplace_back([flat_bf16, link_bf16] { flat_bf16->multi_node_mean_grad(*link_bf16); });
    sides.ops.emplace_back([flat_fp16, link_fp16] { flat_fp16->multi_node_mean_grad(*link_fp16); });
    return sides;
}

// The median seconds of each side, calls alternating between the sides.
std::vector<double> measure(MPI_Comm raw, const Sides& sides, int calls) {
    for (const auto& op : sides.ops) op();  // warm up: buffers, MPI's internal state
    std::vector<std::vector<double>> times(sides.ops.size());
    for (int c = 0; c < calls; ++c) {
        for (size_t s = 0; s < sides.ops.size(); ++s) times[s].push_back(time_call(raw, sides.ops[s]));
    }
    std::vector<double> medians;
    for (auto& t : times) medians.push_back(median(t));
    return medians;
}

void report(const Args& args, int size, int64_t mib, const Sides& sides, const std::vector<double>& seconds) {
    const double bytes = static_cast<double>(mib) * 1024 * 1024;
    if (args.json) {
        std::printf("{\"size_mib\": %lld, \"processes\": %d", static_cast<long long>(mib), size);
        for (size_t s = 0; s < sides.names.size(); ++s) {
            std::printf(", \"%s_s\": %.6g, \"%s_gbps\": %.4f", sides.names[s].c_str(), seconds[s],
                        sides.names[s].c_str(), bytes / seconds[s] / 1e9);
        }
        std::printf("}\n");
    } else {
        for (size_t s = 0; s < sides.names.size(); ++s) {
            std::printf("%6lld MiB  %-10s %9.3f ms  %7.3f GB/s  ratio to mpi %.3f\n", static_cast<long long>(mib),
                        sides.names[s].c_str(), seconds[s] * 1e3, bytes / seconds[s] / 1e9, seconds[0] / seconds[s]);
        }
    }
    std::fflush(stdout);
}

// --small: seconds per call of each side, median over rounds of shuffled blocks.
void run_small(const Args& args, MPI_Comm raw, const dist::CommunicatorPtr& flat) {
    constexpr int kBlock = 250, kRounds = 400;
    const int64_t n = args.small_elements;
    const Array buffer = Array::from_vector<float>(std::vector<float>(static_cast<size_t>(n), 0.0f), {n});
    const Array x = buffer.copy();
    std::vector<float> raw_values(static_cast<size_t>(n), 0.0f);
    auto checked = [](bool on, std::function<void()> op) {
        return [on, op] {
            dist::detail::set_signature_check(on);
            op();
        };
    };
    const auto inplace = [flat, buffer] { flat->allreduce_inplace(buffer); };
    const auto alloc = [flat, x] { (void)flat->allreduce(x); };
    Sides sides;
    sides.names = {"mpi", "inplace_check_off", "inplace_check_on", "allreduce_check_off", "allreduce_check_on"};
    sides.ops = {[raw, &raw_values] {
                     MPI_Allreduce(MPI_IN_PLACE, raw_values.data(), static_cast<int>(raw_values.size()), MPI_FLOAT,
                                   MPI_SUM, raw);
                 },
                 checked(false, inplace), checked(true, inplace), checked(false, alloc), checked(true, alloc)};
    const auto block = [](const std::function<void()>& op) {
        return [op] {
            for (int i = 0; i < kBlock; ++i) op();
        };
    };
    std::vector<std::vector<double>> times(sides.ops.size());
    std::vector<size_t> order(sides.ops.size());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937 shuffle_rng(12345);                  // the same order on every rank
    for (int round = -1; round < kRounds; ++round) {  // round -1 warms up
        std::shuffle(order.begin(), order.end(), shuffle_rng);
        for (const size_t s : order) {
            const double seconds = time_call(raw, block(sides.ops[s])) / kBlock;
            if (round >= 0) times[s].push_back(seconds);
        }
    }
    dist::detail::set_signature_check(true);
    if (flat->rank() != 0) return;
    std::vector<double> us;
    for (auto& t : times) us.push_back(median(t) * 1e6);
    // The check's cost: on minus off within each round, median over the rounds.
    const auto paired = [&](size_t on, size_t off) {
        std::vector<double> d;
        for (int r = 0; r < kRounds; ++r) d.push_back(times[on][r] - times[off][r]);
        return median(d) * 1e6;
    };
    if (args.json) {
        std::printf("{\"bytes\": %lld, \"processes\": %d", static_cast<long long>(4 * n), flat->size());
        for (size_t s = 0; s < sides.names.size(); ++s) std::printf(", \"%s_us\": %.4f", sides.names[s].c_str(), us[s]);
        std::printf(", \"inplace_cost_us\": %.4f, \"allreduce_cost_us\": %.4f}\n", paired(2, 1), paired(4, 3));
    } else {
        std::printf("%lld-byte all-reduce, %d processes, median over %d rounds of %d calls\n",
                    static_cast<long long>(4 * n), flat->size(), kRounds, kBlock);
        for (size_t s = 0; s < sides.names.size(); ++s)
            std::printf("  %-20s %8.3f us\n", sides.names[s].c_str(), us[s]);
        std::printf(
            "  check cost (median of on - off within a round): allreduce_inplace %+.3f us, allreduce %+.3f us\n",
            paired(2, 1), paired(4, 3));
    }
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const Args args = parse_args(argc, argv);
    // The communicators initialise MPI (Note [MPI lifetime]); the raw side gets its own dup.
    const Comms comms{.naive = dist::create_communicator("naive"),
                      .flat = dist::create_communicator("flat"),
                      .flat_bf16 = dist::create_communicator("flat", {.allreduce_grad_dtype = Dtype::kBFloat16}),
                      .flat_fp16 = dist::create_communicator("flat", {.allreduce_grad_dtype = Dtype::kFloat16})};
    const auto& naive = comms.naive;
    MPI_Comm raw = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &raw);
    if (args.small) {
        run_small(args, raw, comms.flat);
        MPI_Comm_free(&raw);
        return 0;
    }
    if (naive->rank() == 0 && !args.json) {
        std::printf("all-reduce of float32, %d processes, median of the slowest rank's time per call\n", naive->size());
    }
    for (const int64_t mib : args.sizes_mib) {
        const Sides sides = make_sides(raw, comms, mib * 1024 * 1024 / 4);
        const std::vector<double> seconds = measure(raw, sides, calls_for(mib));
        if (naive->rank() == 0) report(args, naive->size(), mib, sides, seconds);
    }
    MPI_Comm_free(&raw);
    return 0;
}
