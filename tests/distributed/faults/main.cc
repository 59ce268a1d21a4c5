// rensa_fault_prog MODE: a small MPI job (guarded MPI_Allreduce calls on a world handle)
// in which rank 1 misbehaves at operation kFaultAt, for the fault tests (run_fault.py).
// Modes: clean, late_exit, recv_stall, recv_exit, segfault, exit1, exit0, _exit0, _exit1 (C's _exit: no atexit, no
// exit protocol), sigkill, sigterm, exception, stall, freeze, mismatch (debug mode), mismatch_dtype and mismatch_count
// (a communicator's allreduce without debug mode), and external / external_single (the program initialises and
// finalises MPI itself).
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "distributed/communicator.h"
#include "distributed/detail/mpi_runtime.h"

namespace {

using namespace rensa;
using namespace rensa::distributed;
using namespace rensa::distributed::detail;

constexpr int kOps = 10;
constexpr int kFaultAt = 5;  // rank 1 misbehaves instead of entering operation #5

void allreduce_once(CommHandle& handle, const Shape& shape) {
    float in = 1.0f, out = 0.0f;
    const OpGuard guard(handle, {.op = "allreduce", .dtype = Dtype::kFloat32, .shape = shape});
    check_mpi(MPI_Allreduce(&in, &out, 1, MPI_FLOAT, MPI_SUM, handle.comm()), "fault prog allreduce");
    if (out != static_cast<float>(handle.size())) throw std::runtime_error("fault prog: wrong allreduce result");
}

// Rank 1's fault; the pause first lets the other ranks block in operation #kFaultAt.
void misbehave(const std::string& mode) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (mode == "segfault") std::raise(SIGSEGV);
    if (mode == "exit1") std::exit(1);
    if (mode == "exit0") std::exit(0);
    if (mode == "_exit0") ::_exit(0);
    if (mode == "_exit1") ::_exit(1);
    if (mode == "sigkill") std::raise(SIGKILL);
    if (mode == "sigterm") std::raise(SIGTERM);
    if (mode == "exception") throw std::runtime_error("boom on rank 1");
    if (mode == "stall") {
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    // Stops every thread, the watchdog too: the others' watchdogs get no answer.
    if (mode == "freeze") std::raise(SIGSTOP);
}

// Point to point: rank 0 waits in a guarded recv from rank 1, which stalls or exits.
int run_recv(CommHandle& world, const std::string& mode) {
    for (int i = 0; i < kFaultAt; ++i) allreduce_once(world, Shape{4, 4});
    if (world.rank() == 0) {
        float value = 0.0f;
        const OpGuard guard(world, {.op = "recv", .root = 1, .collective = false});
        check_mpi(MPI_Recv(&value, 1, MPI_FLOAT, 1, 0, world.comm(), MPI_STATUS_IGNORE), "fault prog recv");
    } else if (world.rank() == 1) {
        misbehave(mode == "recv_stall" ? "stall" : "exit0");
    }
    return 0;
}

int world_rank_or_minus_one() {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

// Debug mode: rank 1 calls with another shape; every rank catches the MpiError.
int run_mismatch(CommHandle& world) {
    set_debug(true);
    try {
        for (int i = 0; i < kOps; ++i) {
            const bool odd = i == kFaultAt && world.rank() == 1;
            allreduce_once(world, odd ? Shape{3, 4} : Shape{4, 4});
        }
    } catch (const MpiError& e) {
        std::fprintf(stderr, "rank %d caught: %s\n", world.rank(), e.what());
        return 3;
    }
    return 0;
}

// Without debug mode, through a communicator: rank 1 all-reduces float64 x2 (the same 16 bytes) or
// float32 x3 where the others all-reduce float32 x4; the always-on signature check raises on every rank.
int run_signature_mismatch(const std::string& mode) {
    const CommunicatorPtr comm = create_communicator("flat");
    const bool odd = comm->rank() == 1;
    try {
        for (int i = 0; i < kOps; ++i) {
            Array x = Array::from_vector<float>({1, 1, 1, 1}, {4});
            if (i == kFaultAt && odd) {
                x = mode == "mismatch_dtype" ? Array::from_vector<double>({1, 1}, {2})
                                             : Array::from_vector<float>({1, 1, 1}, {3});
            }
            const Array sum = comm->allreduce(x);
            const double first = sum.dtype() == Dtype::kFloat64 ? static_cast<const double*>(sum.raw_data())[0]
                                                                : static_cast<const float*>(sum.raw_data())[0];
            if (first != comm->size()) std::printf("rank %d: allreduce %d gave %g\n", comm->rank(), i, first);
        }
    } catch (const MpiError& e) {
        std::fprintf(stderr, "rank %d caught: %s\n", comm->rank(), e.what());
        return 3;
    }
    return 0;
}

// MPI initialised (at `level`) and finalised by the program, not by rensa.
int run_external(int level) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, level, &provided);
    int status = 0;
    try {
        const auto world = CommHandle::create_world();
        for (int i = 0; i < kOps; ++i) allreduce_once(*world, Shape{4, 4});
    } catch (const MpiError& e) {
        std::fprintf(stderr, "rank %d caught: %s\n", world_rank_or_minus_one(), e.what());
        status = 4;
    }
    MPI_Finalize();
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "clean";
    if (mode == "external") return run_external(MPI_THREAD_MULTIPLE);
    if (mode == "external_single") return run_external(MPI_THREAD_SINGLE);
    if (mode == "mismatch_dtype" || mode == "mismatch_count") return run_signature_mismatch(mode);
    const auto world = CommHandle::create_world();
    if (mode == "mismatch") return run_mismatch(*world);
    if (mode == "recv_stall" || mode == "recv_exit") return run_recv(*world, mode);
    for (int i = 0; i < kOps; ++i) {
        if (i == kFaultAt && world->rank() == 1 && mode != "clean" && mode != "late_exit") misbehave(mode);
        allreduce_once(*world, Shape{4, 4});
    }
    // A rank that finishes late (no collective left) is a normal end: silent, status 0.
    if (mode == "late_exit" && world->rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return 0;
}
