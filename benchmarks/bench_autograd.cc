// Autograd benchmarks, each beside its baseline in the same run (see benchmarks/README.md):
// one small op (1x10 float32) through Variable with graph recording against the bare
// core/ops call, forward+backward per node, and backward over a 10,000-node chain.

#include <benchmark/benchmark.h>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"

namespace {

using rensa::Array;
using rensa::Variable;
namespace ops = rensa::ops;

const Array& small_a() {
    static const Array a = ops::ones({1, 10});
    return a;
}
const Array& small_b() {
    static const Array b = ops::full({1, 10}, 2.0f, rensa::Dtype::kFloat32);
    return b;
}

// Baseline: the bare core op.
void BM_core_mul(benchmark::State& state) {
    const Array a = small_a(), b = small_b();
    for (auto _ : state) benchmark::DoNotOptimize(ops::multiply(a, b).raw_data());
}
BENCHMARK(BM_core_mul);

// The same op on Variables that do not require grad: no graph, Variable wrapping only.
void BM_variable_mul_no_graph(benchmark::State& state) {
    const Variable a(small_a(), false), b(small_b(), false);
    for (auto _ : state) benchmark::DoNotOptimize((a * b).array().raw_data());
}
BENCHMARK(BM_variable_mul_no_graph);

// The same op recording the graph (node created, linked and released each iteration).
void BM_variable_mul_graph(benchmark::State& state) {
    const Variable a(small_a(), true), b(small_b(), true);
    for (auto _ : state) benchmark::DoNotOptimize((a * b).array().raw_data());
}
BENCHMARK(BM_variable_mul_graph);

// Baseline of forward+backward by hand: y = a * b, ga = gy * b, gb = gy * a.
void BM_core_mul_forward_backward(benchmark::State& state) {
    const Array a = small_a(), b = small_b(), gy = ops::ones({1, 10});
    for (auto _ : state) {
        benchmark::DoNotOptimize(ops::multiply(a, b).raw_data());
        benchmark::DoNotOptimize(ops::multiply(gy, b).raw_data());
        benchmark::DoNotOptimize(ops::multiply(gy, a).raw_data());
    }
}
BENCHMARK(BM_core_mul_forward_backward);

// Forward + backward of one Mul node through the engine (explicit output grad).
void BM_variable_mul_forward_backward(benchmark::State& state) {
    const Variable a(small_a(), true), b(small_b(), true);
    const std::vector<Variable> gy{Variable(ops::ones({1, 10}), false)};
    for (auto _ : state) {
        rensa::backward({a * b}, gy);
        a.cleargrad();
        b.cleargrad();
    }
}
BENCHMARK(BM_variable_mul_forward_backward);

// Backward over a chain of 10,000 Mul-by-constant nodes (the chain is built untimed).
void BM_backward_chain_10000(benchmark::State& state) {
    constexpr int kNodes = 10'000;
    const Variable x(ops::ones({1, 10}), true);
    const std::vector<Variable> gy{Variable(ops::ones({1, 10}), false)};
    for (auto _ : state) {
        state.PauseTiming();
        Variable y = x;
        for (int i = 0; i < kNodes; ++i) y = y * 1.0f;
        x.cleargrad();
        state.ResumeTiming();
        rensa::backward({y}, gy);
        state.PauseTiming();
        y = Variable();  // release untimed
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * kNodes);
}
BENCHMARK(BM_backward_chain_10000)->Unit(benchmark::kMillisecond);

// Baseline for the chain: the 10,000 core ops its backward computes (gy * 1.0).
void BM_core_chain_10000(benchmark::State& state) {
    constexpr int kNodes = 10'000;
    const Array gy = ops::ones({1, 10});
    for (auto _ : state) {
        for (int i = 0; i < kNodes; ++i) benchmark::DoNotOptimize(ops::multiply(gy, 1.0f).raw_data());
    }
    state.SetItemsProcessed(state.iterations() * kNodes);
}
BENCHMARK(BM_core_chain_10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
