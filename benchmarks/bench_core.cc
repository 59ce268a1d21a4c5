// Core benchmarks, each beside its baseline in the same run (see benchmarks/README.md):
// elementwise add/exp and sum against memcpy of the same bytes, ops::matmul against
// cblas_sgemm called directly on the same buffers, and bfloat16 ops::matmul beside float32
// at the MNIST MLP's shapes (batch 100, 784-1000-1000-10), forward and backward.

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <array>
#include <cstring>
#include <string>

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

// One GEMM of the MLP's training step: (m, k) @ (k, n), each operand read through a transposed
// view where Linear's forward and backward read it so.
struct MlpGemm {
    const char* name;
    int64_t m, n, k;
    bool trans_a, trans_b;
};
constexpr std::array<MlpGemm, 7> kMlpGemms{{
    {"y1 = x W1^T", 100, 1000, 784, false, true},
    {"y2 = h W2^T", 100, 1000, 1000, false, true},
    {"y3 = h W3^T", 100, 10, 1000, false, true},
    {"gW1 = gy^T x", 1000, 784, 100, true, false},
    {"gW2 = gy^T h", 1000, 1000, 100, true, false},
    {"gx2 = gy W2", 100, 1000, 1000, false, false},
    {"gx3 = gy W3", 100, 1000, 10, false, false},
}};

// Args: the kMlpGemms index and 0 for float32, 1 for bfloat16 (same values, rounded).
void BM_matmul_mlp(benchmark::State& state) {
    const MlpGemm& g = kMlpGemms[static_cast<size_t>(state.range(0))];
    const rensa::Dtype dtype = state.range(1) == 0 ? rensa::Dtype::kFloat32 : rensa::Dtype::kBFloat16;
    const Array a0 = ops::uniform(g.trans_a ? rensa::Shape{g.k, g.m} : rensa::Shape{g.m, g.k}).astype(dtype);
    const Array b0 = ops::uniform(g.trans_b ? rensa::Shape{g.n, g.k} : rensa::Shape{g.k, g.n}).astype(dtype);
    const Array a = g.trans_a ? a0.transpose() : a0, b = g.trans_b ? b0.transpose() : b0;
    for (auto _ : state) benchmark::DoNotOptimize(ops::matmul(a, b).raw_data());
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * static_cast<double>(g.m * g.n * g.k) * static_cast<double>(state.iterations()) * 1e-9,
                           benchmark::Counter::kIsRate);
    state.SetLabel(std::string(g.name) + (state.range(1) == 0 ? " float32" : " bfloat16"));
}
BENCHMARK(BM_matmul_mlp)
    ->ArgsProduct({benchmark::CreateDenseRange(0, static_cast<int64_t>(kMlpGemms.size()) - 1, 1), {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
