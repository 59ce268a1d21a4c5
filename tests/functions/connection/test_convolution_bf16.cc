// convolution_2d and deconvolution_2d on bfloat16 Variables, forward and backward, against
// the same functions in float32 on the same bfloat16-rounded operands. The problems are
// large enough for oneDNN's bfloat16 kernels (Note [oneDNN bfloat16]).
//
// Tolerance: gx and gW are summed in float32 and rounded to bfloat16 once (at most 2^-8
// relative), so rtol 2^-7 with atol 1e-3 (float32 summation order) holds them; y with a
// bias is rounded twice (the convolution, then the bias add in bfloat16) and gb is the
// bfloat16 sum of gy over n, h and w (ops::sum, not oneDNN): bfloat16's own tolerance.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr Tolerance kRoundedOnce{1e-3, 1.0 / 128};

Array bf16_values(const Shape& shape, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    for (double& x : v) x = dist(rng);
    return make_array(v, shape, Dtype::kBFloat16);
}

struct Grads {
    Array y, gx, gw, gb;
};

// Runs f(x, W, b) with the operands in `dtype` and backprops gy from y.
template <class F>
Grads run(F&& f, const Array& x, const Array& w, const Array& b, const Array& gy, Dtype dtype) {
    const Variable vx(x.astype(dtype)), vw(w.astype(dtype)), vb(b.astype(dtype));
    const Variable y = f(vx, vw, vb);
    y.set_grad(gy.astype(dtype));
    y.backward();
    return {y.array(), vx.grad(), vw.grad(), vb.grad()};
}

template <class F>
void check_against_float32(F&& f, const Shape& xs, const Shape& ws, int64_t c_out) {
    const Array x = bf16_values(xs, 1), w = bf16_values(ws, 2), b = bf16_values({c_out}, 3);
    const Array y32 =
        f(Variable(x.astype(Dtype::kFloat32)), Variable(w.astype(Dtype::kFloat32)), Variable(b.astype(Dtype::kFloat32)))
            .array();
    const Array gy = bf16_values(y32.shape(), 4);
    const Grads low = run(f, x, w, b, gy, Dtype::kBFloat16);
    const Grads ref = run(f, x, w, b, gy, Dtype::kFloat32);
    for (const Array& a : {low.y, low.gx, low.gw, low.gb}) CHECK(a.dtype() == Dtype::kBFloat16);
    check_allclose(low.y, ref.y, tolerance(Dtype::kBFloat16));
    check_allclose(low.gx, ref.gx, kRoundedOnce);
    check_allclose(low.gw, ref.gw, kRoundedOnce);
    check_allclose(low.gb, ref.gb, tolerance(Dtype::kBFloat16));
}

}  // namespace

TEST_CASE("convolution_2d on bfloat16 matches float32 on the rounded operands", "[functions][connection][bf16]") {
    check_against_float32([](const Variable& x, const Variable& w,
                             const Variable& b) { return F::convolution_2d(x, w, b, {.stride = 1, .pad = 2}); },
                          {4, 16, 14, 14}, {32, 16, 5, 5}, 32);
    check_against_float32(
        [](const Variable& x, const Variable& w, const Variable& b) {
            return F::convolution_2d(x, w, b, {.stride = 2, .pad = 1, .cover_all = true, .dilate = 1, .groups = 2});
        },
        {2, 32, 13, 13}, {32, 16, 3, 3}, 32);
}

TEST_CASE("deconvolution_2d on bfloat16 matches float32 on the rounded operands", "[functions][connection][bf16]") {
    // W (c_in 16, c_out 32, 3, 3): the forward is convolution_backward_data, gx the convolution.
    check_against_float32([](const Variable& x, const Variable& w,
                             const Variable& b) { return F::deconvolution_2d(x, w, b, {.stride = 2, .pad = 1}); },
                          {2, 16, 10, 10}, {16, 32, 3, 3}, 32);
}
