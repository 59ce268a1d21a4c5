#pragma once
// Shows that an operation's memory is bounded: the operation runs in a forked child whose
// address space is capped (RLIMIT_AS) a given headroom above what it has mapped, so an
// allocation past the bound fails there with std::bad_alloc instead of growing the test.
// Header-only; the child reports back through a pipe, the test asserts in the parent.

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <fstream>
#include <functional>
#include <new>
#include <string>

#include "core/error.h"

namespace rensa::testing {

// AddressSanitizer's shadow memory needs terabytes of address space: no cap there (the
// checks of the error itself still run).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kCanLimitAddressSpace = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kCanLimitAddressSpace = false;
#else
inline constexpr bool kCanLimitAddressSpace = true;
#endif
#else
inline constexpr bool kCanLimitAddressSpace = true;
#endif

// How a child run ended.
struct ChildResult {
    bool finished = false;  // the body returned or threw (false: killed, timed out)
    std::string error;      // "" when it returned, else the exception's kind (see run_in_child)
    std::string message;    // the exception's what()
    double seconds = 0.0;   // the body's wall time
};

// The address space this process has mapped, in bytes.
inline int64_t mapped_bytes() {
    std::ifstream statm{"/proc/self/statm"};
    int64_t pages = 0;
    statm >> pages;
    return pages * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

// Caps this process's address space at what it has mapped now plus `headroom` bytes (not
// under AddressSanitizer). Meant for a child of run_in_child.
inline void limit_address_space(int64_t headroom) {
    if (!kCanLimitAddressSpace) return;
    const auto limit = static_cast<rlim_t>(mapped_bytes() + headroom);
    const rlimit cap{limit, limit};
    ::setrlimit(RLIMIT_AS, &cap);
}

// Runs `body` in a forked child, killed after `timeout_s` seconds. The exception it throws
// comes back as its kind ("IOError", "DimensionError", "DtypeError", "KeyError", "Error" for
// another rensa error, "bad_alloc", "exception") and message. `body` must not use Catch2's
// assertions (they would fail in the child); it allocates its inputs itself, so that the
// parent stays free of OpenMP threads a forked child cannot use.
inline ChildResult run_in_child(const std::function<void()>& body, int timeout_s = 60) {
    int fds[2];
    if (::pipe(fds) != 0) return {false, "pipe", "pipe() failed", 0.0};
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        ::alarm(static_cast<unsigned>(timeout_s));
        std::string kind, message;
        const auto start = std::chrono::steady_clock::now();
        try {
            body();
        } catch (const IOError& e) {
            kind = "IOError", message = e.what();
        } catch (const DimensionError& e) {
            kind = "DimensionError", message = e.what();
        } catch (const DtypeError& e) {
            kind = "DtypeError", message = e.what();
        } catch (const KeyError& e) {
            kind = "KeyError", message = e.what();
        } catch (const Error& e) {
            kind = "Error", message = e.what();
        } catch (const std::bad_alloc& e) {
            kind = "bad_alloc", message = e.what();
        } catch (const std::exception& e) {
            kind = "exception", message = e.what();
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string report = kind + '\n' + std::to_string(seconds) + '\n' + message;
        for (size_t done = 0; done < report.size();) {
            const ssize_t n = ::write(fds[1], report.data() + done, report.size() - done);
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        ::_exit(0);
    }
    ::close(fds[1]);
    ChildResult result;
    if (child < 0) {
        ::close(fds[0]);
        return {false, "fork", "fork() failed", 0.0};
    }
    std::string report;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) report.append(buffer, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    const size_t a = report.find('\n'), b = a == std::string::npos ? a : report.find('\n', a + 1);
    result.finished = WIFEXITED(status) && WEXITSTATUS(status) == 0 && b != std::string::npos;
    if (!result.finished) {
        result.message = WIFSIGNALED(status) ? "the child was killed by signal " + std::to_string(WTERMSIG(status))
                                             : "the child ended without a report";
        return result;
    }
    result.error = report.substr(0, a);
    result.seconds = std::stod(report.substr(a + 1, b - a - 1));
    result.message = report.substr(b + 1);
    return result;
}

}  // namespace rensa::testing
