// The native bfloat16 gemm (oneDNN matmul where the CPU has it, Note [bf16 gemm] in
// core/native/gemm_dnnl.cc; float32 temporaries otherwise) against float64 products of the
// same bfloat16 operands. Note [bf16 gemm tolerance]: the result must be the float32-accumulated
// product rounded once to bfloat16, so an element may differ from the exact product by half a
// bfloat16 ulp (at most 2^-8 |c|: an 8-bit significand) plus the float32 accumulation error, bounded
// here by k * 2^-22 * max|a| * max|b|. Accumulating in bfloat16 instead errs by about
// 2^-9 * sqrt(k) * |partial sums|: in a simulation of it, 44% of the elements at k = 7 and 64%
// at k = 33 break these bounds (and the sum of 4096 ones, where bfloat16 accumulation stops at
// 256, fails outright).

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/native/gemm_dnnl.h"
#include "core/ops/creation.h"
#include "core/ops/linalg.h"
#include "tests/testing/testing.h"

using namespace rensa;

namespace {

// Deterministic values in [-1, 1) rounded to bfloat16.
Array random_bf16(const Shape& shape, uint32_t seed) {
    std::vector<float> v(static_cast<size_t>(shape_size(shape)));
    uint32_t s = seed * 2654435761u + 12345u;
    for (float& x : v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
    }
    return Array::from_vector(v, shape).astype(Dtype::kBFloat16);
}

double max_abs(const std::vector<double>& v) {
    double m = 0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

// c (batch, m, n) against alpha * a @ b + beta * old in float64; a (batch or 1, m, k), b (batch or 1, k, n).
void check_product(const Array& c, const Array& a, const Array& b, double alpha = 1.0, double beta = 0.0,
                   const std::vector<double>& old = {}) {
    const int64_t batch = c.shape()[0], m = c.shape()[1], n = c.shape()[2], k = a.shape()[2];
    const std::vector<double> av = testing::to_doubles(a), bv = testing::to_doubles(b), cv = testing::to_doubles(c);
    const double bound = static_cast<double>(k) * std::ldexp(1.0, -22) * max_abs(av) * max_abs(bv) * std::abs(alpha);
    const int64_t a_batch = a.shape()[0] == 1 ? 0 : m * k, b_batch = b.shape()[0] == 1 ? 0 : k * n;
    int64_t bad = 0;
    for (int64_t i = 0; i < batch; ++i) {
        for (int64_t r = 0; r < m; ++r) {
            for (int64_t j = 0; j < n; ++j) {
                double sum = 0;
                for (int64_t p = 0; p < k; ++p) sum += av[i * a_batch + r * k + p] * bv[i * b_batch + p * n + j];
                const size_t at = static_cast<size_t>((i * m + r) * n + j);
                const double expected = alpha * sum + (beta != 0 ? beta * old[at] : 0.0);
                const double tol = std::ldexp(std::abs(expected), -8) + bound + (beta != 0 ? 1e-6 : 0.0);
                if (std::abs(cv[at] - expected) > tol) {
                    if (bad++ < 3)
                        FAIL_CHECK("c[" << i << "," << r << "," << j << "] = " << cv[at] << ", expected " << expected);
                }
            }
        }
    }
    CHECK(bad == 0);
}

// Whether this CPU runs bfloat16 gemm through oneDNN (no float32 temporaries).
bool dnnl_path() {
    const std::string info = native::bf16_gemm_info();
    return info.find("native bf16 dot products") != std::string::npos;
}

int64_t native_allocs() { return global_context().allocator(Device::native()).stats().num_allocs; }

}  // namespace

TEST_CASE("gemm bf16: accumulates in float32 and rounds once", "[linalg][bf16]") {
    const Array ones_row = ops::ones({1, 4096}, Dtype::kBFloat16);
    const Array ones_col = ops::ones({4096, 1}, Dtype::kBFloat16);
    CHECK(ops::matmul(ones_row, ones_col).item<double>() == 4096.0);  // bfloat16 sums stop at 256
    // 512 products of 1 + 2^-7: exact in float32; a bfloat16 running sum (ulp 2 from 256 on) drifts.
    const Array a = ops::full({1, 512}, 1.0, Dtype::kBFloat16);
    const Array b = ops::full({512, 1}, 1.0 + 1.0 / 128, Dtype::kBFloat16);
    CHECK(ops::matmul(a, b).item<double>() == 516.0);  // 512 * (1 + 2^-7) = 516 exactly
}

TEST_CASE("gemm bf16: odd sizes and transposed views", "[linalg][bf16]") {
    const bool dnnl = dnnl_path();
    for (int64_t m : {1, 7, 33}) {
        for (int64_t n : {1, 7, 33}) {
            for (int64_t k : {1, 7, 33, 300}) {
                for (int t = 0; t < 4; ++t) {
                    const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
                    CAPTURE(m, n, k, ta, tb);
                    const Array a = ta ? random_bf16({k, m}, 1).transpose() : random_bf16({m, k}, 1);
                    const Array b = tb ? random_bf16({n, k}, 2).transpose() : random_bf16({k, n}, 2);
                    const int64_t before = native_allocs();
                    const Array c = ops::matmul(a, b);
                    if (dnnl) CHECK(native_allocs() - before == 1);  // the output only: no float32 temporaries
                    check_product(c.reshape({1, m, n}), a.copy().reshape({1, m, k}), b.copy().reshape({1, k, n}));
                }
            }
        }
    }
}

TEST_CASE("gemm bf16: batches and a broadcast batch", "[linalg][bf16]") {
    const Array a = random_bf16({5, 7, 33}, 3), b = random_bf16({5, 33, 9}, 4);
    check_product(ops::batch_matmul(a, b), a, b);
    const Array a1 = random_bf16({1, 7, 33}, 5), b1 = random_bf16({1, 33, 9}, 6);
    check_product(ops::batch_matmul(a1, b), a1, b);  // a's batch of 1 broadcasts (stride 0)
    check_product(ops::batch_matmul(a, b1), a, b1);
    const Array bt = random_bf16({5, 9, 33}, 7);
    check_product(ops::batch_matmul(a, bt, false, true), a, bt.swapaxes(1, 2).copy());
    // numpy broadcasting: (5, 7, 33) @ (33, 9)
    const Array b2 = random_bf16({33, 9}, 8);
    check_product(ops::matmul(a, b2), a, b2.reshape({1, 33, 9}));
}

TEST_CASE("gemm bf16: alpha, beta and output layouts through the kernel", "[linalg][bf16]") {
    const Array a = random_bf16({2, 7, 33}, 9), b = random_bf16({2, 33, 5}, 10);
    Kernels& kernels = global_context().kernels(Device::native());
    SECTION("row-major c") {
        const Array c = random_bf16({2, 7, 5}, 11);
        const std::vector<double> old = testing::to_doubles(c);
        kernels.gemm({.a = a, .b = b, .out = c, .alpha = 1.5, .beta = -0.5});
        check_product(c, a, b, 1.5, -0.5, old);
    }
    SECTION("column-major c") {
        const Array c = random_bf16({2, 5, 7}, 12).swapaxes(1, 2);
        const std::vector<double> old = testing::to_doubles(c);
        kernels.gemm({.a = a, .b = b, .out = c, .beta = 1.0});
        check_product(c, a, b, 1.0, 1.0, old);
    }
    SECTION("c with neither axis unit-strided") {
        const Array base = random_bf16({2, 14, 10}, 13);
        const Array c = base.index({Slice{}, Slice{0, 14, 2}, Slice{0, 10, 2}});
        const std::vector<double> old = testing::to_doubles(c);
        kernels.gemm({.a = a, .b = b, .out = c, .alpha = 2.0, .beta = 1.0});
        check_product(c, a, b, 2.0, 1.0, old);
    }
}

TEST_CASE("gemm bf16: the MLP's shapes, forward and backward", "[linalg][bf16]") {
    const Array x = random_bf16({100, 784}, 14), w = random_bf16({1000, 784}, 15), gy = random_bf16({100, 1000}, 16);
    const Array y = ops::matmul(x, w.transpose());  // y = x W^T
    check_product(y.reshape({1, 100, 1000}), x.reshape({1, 100, 784}), w.transpose().copy().reshape({1, 784, 1000}));
    const Array gw = ops::matmul(gy.transpose(), x);  // gW = gy^T x
    check_product(gw.reshape({1, 1000, 784}), gy.transpose().copy().reshape({1, 1000, 100}), x.reshape({1, 100, 784}));
}
