// F::linear and F::matmul (the MLP's GEMM functions) on bfloat16 Variables, forward and
// backward, against the same functions on float32 copies of the same bf16-rounded values:
// every output and gradient must be the float32 result rounded once to bfloat16 (2^-8
// relative) up to float32's accumulation error, k * 2^-22 * max|a| * max|b| for a sum of k
// products (Note [bf16 gemm tolerance] in tests/core/test_gemm_bf16.cc).

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "functions/math.h"
#include "tests/testing/testing.h"

using namespace rensa;

namespace {

// Deterministic values in [-1, 1) rounded to bfloat16.
Array bf16_values(const Shape& shape, int seed) {
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::fmod((i + 7.0 * seed) * 0.618033988749, 1.0) * 2 - 1;
    return testing::make_array(v, shape, Dtype::kBFloat16);
}

// actual (bfloat16) within one bfloat16 rounding of expected (float32) plus `bound`.
void check_rounded_once(const Array& actual, const Array& expected, double bound) {
    REQUIRE(actual.dtype() == Dtype::kBFloat16);
    REQUIRE(expected.dtype() == Dtype::kFloat32);
    REQUIRE(actual.shape() == expected.shape());
    const std::vector<double> a = testing::to_doubles(actual), e = testing::to_doubles(expected);
    int64_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::abs(a[i] - e[i]) > std::ldexp(std::abs(e[i]), -8) + bound) {
            if (bad++ < 3) FAIL_CHECK("element " << i << ": " << a[i] << ", float32 gives " << e[i]);
        }
    }
    CHECK(bad == 0);
}

double accumulation_bound(int64_t k) { return static_cast<double>(k) * std::ldexp(1.0, -22); }  // |values| < 1

// Runs f on bf16 Variables and on float32 copies, seeds both outputs with gy and backprops.
struct Run {
    Variable y;
    std::vector<Variable> inputs;
};
template <class F>
Run run(const std::vector<Array>& values, const Array& gy, F&& f) {
    Run r;
    for (const Array& v : values) r.inputs.emplace_back(v, /*requires_grad=*/true);
    r.y = f(r.inputs);
    r.y.set_grad(gy.astype(r.y.dtype()));
    r.y.backward();
    return r;
}

std::vector<Array> as_float32(const std::vector<Array>& values) {
    std::vector<Array> out;
    for (const Array& v : values) out.push_back(v.astype(Dtype::kFloat32));
    return out;
}

}  // namespace

TEST_CASE("linear: bfloat16 forward and backward round float32's once", "[functions][connection][bf16]") {
    const int64_t batch = 64, in = 300, out = 200;
    const std::vector<Array> values{bf16_values({batch, in}, 1), bf16_values({out, in}, 2), bf16_values({out}, 3)};
    const Array gy = bf16_values({batch, out}, 4);
    const auto f = [](const std::vector<Variable>& v) { return F::linear(v[0], v[1], v[2]); };
    const Run r = run(values, gy, f), r32 = run(as_float32(values), gy, f);
    check_rounded_once(r.y.array(), r32.y.array(), accumulation_bound(in + 1));               // + the bias
    check_rounded_once(r.inputs[0].grad(), r32.inputs[0].grad(), accumulation_bound(out));    // gx = gy W
    check_rounded_once(r.inputs[1].grad(), r32.inputs[1].grad(), accumulation_bound(batch));  // gW = gy^T x
    check_rounded_once(r.inputs[2].grad(), r32.inputs[2].grad(), accumulation_bound(batch));  // gb = sum gy
}

TEST_CASE("matmul: bfloat16 forward and backward round float32's once", "[functions][connection][bf16]") {
    for (const bool transa : {false, true}) {
        for (const bool transb : {false, true}) {
            CAPTURE(transa, transb);
            const int64_t m = 33, k = 70, n = 9;
            const Array a = bf16_values(transa ? Shape{k, m} : Shape{m, k}, 5);
            const Array b = bf16_values(transb ? Shape{n, k} : Shape{k, n}, 6);
            const Array gy = bf16_values({m, n}, 7);
            const auto f = [&](const std::vector<Variable>& v) { return F::matmul(v[0], v[1], transa, transb); };
            const Run r = run({a, b}, gy, f), r32 = run(as_float32({a, b}), gy, f);
            check_rounded_once(r.y.array(), r32.y.array(), accumulation_bound(k));
            check_rounded_once(r.inputs[0].grad(), r32.inputs[0].grad(), accumulation_bound(n));
            check_rounded_once(r.inputs[1].grad(), r32.inputs[1].grad(), accumulation_bound(m));
        }
    }
    // a batch: (4, 33, 70) @ (4, 70, 9)
    const Array a = bf16_values({4, 33, 70}, 8), b = bf16_values({4, 70, 9}, 9), gy = bf16_values({4, 33, 9}, 10);
    const auto f = [](const std::vector<Variable>& v) { return F::matmul(v[0], v[1]); };
    const Run r = run({a, b}, gy, f), r32 = run(as_float32({a, b}), gy, f);
    check_rounded_once(r.y.array(), r32.y.array(), accumulation_bound(70));
    check_rounded_once(r.inputs[0].grad(), r32.inputs[0].grad(), accumulation_bound(9));
    check_rounded_once(r.inputs[1].grad(), r32.inputs[1].grad(), accumulation_bound(33));
}
