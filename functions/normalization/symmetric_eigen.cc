// The batched symmetric eigensolver of decorrelated_batch_normalization.

#include <cstdint>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/normalization/detail.h"

namespace rensa::functions::detail {
namespace {

// Cyclic sweeps over every pair (p, q). Jacobi converges quadratically: 10 sweeps take
// float64 matrices of the sizes batch normalization sees (C up to a few dozen) to rounding.
constexpr int kSweeps = 10;

// x[..., p] and x[..., q] (axis 2) or x[:, p, :] and x[:, q, :] (axis 1) replaced by
// c x_p - s x_q and s x_p + c x_q; c and s broadcast over the batch.
void rotate(const Array& x, int axis, int64_t p, int64_t q, const Array& c, const Array& s) {
    const auto line = [&](int64_t i) {
        return axis == 2 ? x.index({Slice{}, Slice{}, i}) : x.index({Slice{}, i, Slice{}});
    };
    const Array xp = line(p).copy(), xq = line(q).copy();
    line(p).assign(ops::subtract(ops::multiply(c, xp), ops::multiply(s, xq)));
    line(q).assign(ops::add(ops::multiply(s, xp), ops::multiply(c, xq)));
}

}  // namespace

// Note [Jacobi eigensolver through ops]: decorrelated batch normalization whitens with
// V diag(w)^-1/2 V^T, Chainer's ZCA matrix from numpy/cupy eigh. That matrix function does
// not depend on which eigenvectors a solver picks, so any exact decomposition gives
// Chainer's values (an iteration stopped early, such as Newton-Schulz, does not). rensa's
// backends have no eigensolver, so this is the cyclic Jacobi method written with core/ops
// on the whole batch at once: each rotation is a few elementwise ops on rows and columns,
// the angle 0.5 atan2(2 a_pq, a_qq - a_pp) computed on the device, a fixed number of
// sweeps, so it runs on every device without reading the matrices back to the host
// (C (C - 1) / 2 rotations per sweep: meant for the group sizes of batch normalization).
SymmetricEigen symmetric_eigen(const Array& a) {
    const int64_t g = a.shape()[0], n = a.shape()[1];
    const Array m = a.astype(Dtype::kFloat64, true);
    const Array v =
        ops::eye(n, std::nullopt, 0, Dtype::kFloat64, a.device()).reshape({1, n, n}).broadcast_to({g, n, n}).copy();
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
        for (int64_t p = 0; p < n; ++p) {
            for (int64_t q = p + 1; q < n; ++q) {
                const Array app = m.index({Slice{}, p, p}), aqq = m.index({Slice{}, q, q});
                const Array apq = m.index({Slice{}, p, q});
                const Array theta = ops::multiply(ops::arctan2(ops::multiply(apq, 2.0), ops::subtract(aqq, app)), 0.5);
                const Array c = ops::cos(theta).reshape({g, 1}), s = ops::sin(theta).reshape({g, 1});
                rotate(m, 2, p, q, c, s);  // m J
                rotate(m, 1, p, q, c, s);  // J^T m J
                rotate(v, 2, p, q, c, s);  // V J
            }
        }
    }
    Array values = ops::empty({g, n}, Dtype::kFloat64, a.device());
    for (int64_t i = 0; i < n; ++i) values.index({Slice{}, i}).assign(m.index({Slice{}, i, i}));
    return {values, v};
}

}  // namespace rensa::functions::detail
