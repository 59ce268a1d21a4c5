// MPI initialisation and finalisation, settings, errors. See Note [MPI lifetime].
#include "distributed/detail/mpi_runtime.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>

#include "distributed/communicator.h"
#include "distributed/detail/exit_guard.h"
#include "distributed/detail/faults.h"
#include "distributed/detail/runtime_internal.h"
#include "distributed/detail/watchdog.h"

namespace rensa::distributed::detail {
namespace {

std::mutex init_mutex;
std::atomic<bool> initialized{false};
bool owns_mpi = false;  // MPI_Init was ours: we finalise it
int cached_rank = 0;
int cached_size = 1;

double env_timeout() {
    const char* text = std::getenv("RENSA_WATCHDOG_TIMEOUT");
    if (text == nullptr || *text == '\0') return 300.0;
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    // A malformed value keeps the default rather than switching the watchdog off.
    return (end != text && value > 0) ? value : 300.0;
}

bool env_debug() {
    const char* text = std::getenv("RENSA_DISTRIBUTED_DEBUG");
    return text != nullptr && text[0] != '\0' && text[0] != '0';
}

std::atomic<double>& timeout_value() {
    static std::atomic<double> value{env_timeout()};
    return value;
}

std::atomic<bool>& debug_value() {
    static std::atomic<bool> value{env_debug()};
    return value;
}

// The atexit finaliser (registered only when MPI_Init was ours): the exit protocol, then
// MPI_Finalize exactly once. See Note [Watchdog protocol].
void finalize_at_exit() {
    if (!mpi_alive()) {
        watchdog::stop();
        return;
    }
    watchdog::exit_notice_and_stop();
    mark_exit(ExitMark::kClean);  // every rank has ended: see Note [Exit guard]
    free_mpi_types();
    MPI_Finalize();
}

// Stops the watchdog thread at exit when MPI is not ours and was never finalised.
void stop_at_exit() { watchdog::stop(); }

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, before it tears anything down: the
// watchdog thread must stop making MPI calls by then, whoever calls MPI_Finalize. (The exit
// protocol does not run here: MPI calls from this callback make MPICH 4.0's MPI_Finalize fail now
// and then on a mutex still held, "pthread_mutex_destroy: Device or resource busy".)
int on_finalize(MPI_Comm, int, void*, void*) {
    mark_exit(ExitMark::kClean);
    watchdog::stop();
    free_mpi_types();
    return MPI_SUCCESS;
}

void hook_finalize() {
    int keyval = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &keyval, nullptr), "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), "MPI_Comm_set_attr");
}

void init_mpi_locked() {
    int already = 0;
    MPI_Initialized(&already);
    int provided = 0;
    if (already) {
        MPI_Query_thread(&provided);
    } else {
        check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
        owns_mpi = true;
    }
    RENSA_CHECK(provided >= MPI_THREAD_MULTIPLE, distributed::MpiError,
                "MPI initialisation: rensa needs MPI_THREAD_MULTIPLE (its "
                "watchdog thread calls MPI) but MPI "
                "provides thread level ",
                provided, " (MPI_THREAD_MULTIPLE is ", MPI_THREAD_MULTIPLE, ")");
    MPI_Comm_rank(MPI_COMM_WORLD, &cached_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cached_size);
}

}  // namespace

bool mpi_alive() {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

void ensure_initialized() {
    if (initialized.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(init_mutex);
    if (initialized.load(std::memory_order_relaxed)) return;
    init_mpi_locked();
    init_mpi_types();
    install_fault_handlers(cached_rank);
    start_exit_guard(cached_rank, cached_size);
    watchdog::start();
    hook_finalize();
    std::atexit(owns_mpi ? finalize_at_exit : stop_at_exit);
    initialized.store(true, std::memory_order_release);
}

bool is_initialized() { return initialized.load(std::memory_order_acquire); }

int world_rank() {
    ensure_initialized();
    return cached_rank;
}

int world_size() {
    ensure_initialized();
    return cached_size;
}

void check_mpi(int status, std::string_view what) {
    if (status == MPI_SUCCESS) [[likely]]
        return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    if (MPI_Error_string(status, text, &length) != MPI_SUCCESS) {
        std::snprintf(text, sizeof text, "MPI error code %d", status);
    }
    int rank = -1;
    if (mpi_alive()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    RENSA_THROW(distributed::MpiError, what, ": ", text, " (rank ", rank, ")");
}

double watchdog_timeout() { return timeout_value().load(std::memory_order_relaxed); }

void set_watchdog_timeout(double seconds) {
    RENSA_CHECK(seconds > 0, ValueError, "set_watchdog_timeout: seconds must be > 0, got ", seconds);
    timeout_value().store(seconds, std::memory_order_relaxed);
}

bool debug_enabled() { return debug_value().load(std::memory_order_relaxed); }
void set_debug(bool on) { debug_value().store(on, std::memory_order_relaxed); }

void abort_job(const std::string& message) {
    int rank = -1;
    if (mpi_alive()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::ostringstream line;
    line << "rensa: rank " << rank << ": " << message << "\n";
    const std::string text = line.str();
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
    abort_world();
}

void abort_world() {
    mark_exit(ExitMark::kReported);
    if (mpi_alive()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::_Exit(1);
}

}  // namespace rensa::distributed::detail
