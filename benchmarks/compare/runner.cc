// bench_compare: the rensa side of benchmarks/compare/compare.py.
//
//   bench_compare --list                       the case names, one per line
//   bench_compare CASE [--iters N] [--warmup W] [--threads T]
//       times N steps of CASE after W untimed ones on T threads (OpenMP and OpenBLAS;
//       default 2) and prints one JSON line: {"case": ..., "times": [seconds, ...],
//       "median": seconds}. Unknown cases exit with status 2.

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "benchmarks/compare/cases.h"

namespace rensa::bench {
namespace {

std::vector<CompareCase> all_cases() {
    std::vector<CompareCase> cases;
    for (auto* family : {connection_cases, convolution_cases, pooling_cases, normalization_cases, activation_cases}) {
        for (CompareCase& c : family()) cases.push_back(std::move(c));
    }
    return cases;
}

struct Options {
    std::string case_name;
    int iters = 20, warmup = 3, threads = 2;
    bool list = false;
};

std::optional<Options> parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--list") {
            o.list = true;
        } else if (arg == "--iters" && has_value) {
            o.iters = std::atoi(argv[++i]);
        } else if (arg == "--warmup" && has_value) {
            o.warmup = std::atoi(argv[++i]);
        } else if (arg == "--threads" && has_value) {
            o.threads = std::atoi(argv[++i]);
        } else if (!arg.starts_with("--") && o.case_name.empty()) {
            o.case_name = arg;
        } else {
            return std::nullopt;
        }
    }
    if (!o.list && (o.case_name.empty() || o.iters < 1 || o.warmup < 0 || o.threads < 1)) return std::nullopt;
    return o;
}

// Seconds per step of `step`, `iters` times after `warmup` untimed runs.
std::vector<double> time_steps(const std::function<void()>& step, int iters, int warmup) {
    using Clock = std::chrono::steady_clock;
    for (int i = 0; i < warmup; ++i) step();
    std::vector<double> times;
    for (int i = 0; i < iters; ++i) {
        const auto start = Clock::now();
        step();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return times;
}

void print_result(const std::string& name, std::vector<double> times) {
    std::printf("{\"case\": \"%s\", \"times\": [", name.c_str());
    for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.9g", i ? ", " : "", times[i]);
    std::sort(times.begin(), times.end());
    std::printf("], \"median\": %.9g}\n", times[times.size() / 2]);
}

int run(const Options& o) {
    const std::vector<CompareCase> cases = all_cases();
    if (o.list) {
        for (const CompareCase& c : cases) std::printf("%s\n", c.name.c_str());
        return 0;
    }
    const auto it =
        std::find_if(cases.begin(), cases.end(), [&](const CompareCase& c) { return c.name == o.case_name; });
    if (it == cases.end()) {
        std::cerr << "bench_compare: unknown case '" << o.case_name << "' (see --list)\n";
        return 2;
    }
    omp_set_num_threads(o.threads);
    openblas_set_num_threads(o.threads);
    const std::function<void()> step = it->setup();
    print_result(it->name, time_steps(step, o.iters, o.warmup));
    return 0;
}

}  // namespace
}  // namespace rensa::bench

int main(int argc, char** argv) {
    const auto options = rensa::bench::parse(argc, argv);
    if (!options) {
        std::cerr << "usage: bench_compare --list | bench_compare CASE [--iters N] [--warmup W] [--threads T]\n";
        return 2;
    }
    try {
        return rensa::bench::run(*options);
    } catch (const std::exception& e) {
        std::cerr << "bench_compare: " << e.what() << "\n";
        return 1;
    }
}
