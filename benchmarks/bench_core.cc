// Core benchmarks, each beside its baseline in the same run (see benchmarks/README.md):
// elementwise add/exp and sum against memcpy of the same bytes, ops::matmul against
// cblas_sgemm called directly on the same buffers.

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstring>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/linalg.h"
#include "core/ops/random.h"
#include "core/ops/reduction.h"

namespace {

using rensa::Array;
namespace ops = rensa::ops;

constexpr int64_t kN = int64_t{16} << 20;  // 16M float32 = 64 MiB
constexpr int64_t kBytes = kN * 4;

// Reports bytes moved (read + written) so GB/s compare across routines.
void set_bytes(benchmark::State& state, int64_t bytes_per_iteration) {
    state.SetBytesProcessed(state.iterations() * bytes_per_iteration);
}

void BM_memcpy(benchmark::State& state) {
    const Array src = ops::ones({kN});
    const Array dst = ops::zeros({kN});
    for (auto _ : state) {
        std::memcpy(dst.raw_data(), src.raw_data(), kBytes);
        benchmark::ClobberMemory();
    }
    set_bytes(state, 2 * kBytes);
}
BENCHMARK(BM_memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_add(benchmark::State& state) {
    const Array a = ops::ones({kN});
    const Array b = ops::ones({kN});
    for (auto _ : state) benchmark::DoNotOptimize(ops::add(a, b).raw_data());
    set_bytes(state, 3 * kBytes);
}
BENCHMARK(BM_add)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_exp(benchmark::State& state) {
    const Array a = ops::ones({kN});
    for (auto _ : state) benchmark::DoNotOptimize(ops::exp(a).raw_data());
    set_bytes(state, 2 * kBytes);
}
BENCHMARK(BM_exp)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_sum(benchmark::State& state) {
    const Array a = ops::ones({kN});
    for (auto _ : state) benchmark::DoNotOptimize(ops::sum(a).raw_data());
    set_bytes(state, kBytes);
}
BENCHMARK(BM_sum)->Unit(benchmark::kMillisecond)->UseRealTime();

void set_flops(benchmark::State& state, int64_t n) {
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * static_cast<double>(n * n * n) * static_cast<double>(state.iterations()) * 1e-9,
                           benchmark::Counter::kIsRate);
}

void BM_sgemm_openblas(benchmark::State& state) {
    const int64_t n = state.range(0);
    const Array a = ops::uniform({n, n});
    const Array b = ops::uniform({n, n});
    const Array c = ops::zeros({n, n});
    const int ni = static_cast<int>(n);
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, static_cast<float*>(a.raw_data()), ni,
                    static_cast<float*>(b.raw_data()), ni, 0.0f, static_cast<float*>(c.raw_data()), ni);
        benchmark::ClobberMemory();
    }
    set_flops(state, n);
}
BENCHMARK(BM_sgemm_openblas)->Arg(256)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_sgemm_ops_matmul(benchmark::State& state) {
    const int64_t n = state.range(0);
    const Array a = ops::uniform({n, n});
    const Array b = ops::uniform({n, n});
    for (auto _ : state) benchmark::DoNotOptimize(ops::matmul(a, b).raw_data());
    set_flops(state, n);
}
BENCHMARK(BM_sgemm_ops_matmul)->Arg(256)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
