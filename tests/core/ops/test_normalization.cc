// batch_norm, fixed_batch_norm, batch_norm_backward and the native kernels against
// float64 references computed here with plain loops, over dtypes, layouts and axes.

#include <omp.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/normalization.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::Layout;

namespace {

struct Reference {
    std::vector<double> y, mean, var, gx, ggamma, gbeta;
};

Reference reference(const std::vector<double>& x, const std::vector<double>& gamma, const std::vector<double>& beta,
                    const std::vector<double>& gy, const Shape& shape, const Axes& axes, double eps) {
    int64_t c = 0;
    const std::vector<int64_t> ids = testing::channel_ids(shape, axes, &c);
    const double m = static_cast<double>(x.size()) / static_cast<double>(c);
    Reference r{{}, std::vector<double>(c), std::vector<double>(c), {}, std::vector<double>(c), std::vector<double>(c)};
    for (size_t i = 0; i < x.size(); ++i) r.mean[ids[i]] += x[i] / m;
    for (size_t i = 0; i < x.size(); ++i) r.var[ids[i]] += (x[i] - r.mean[ids[i]]) * (x[i] - r.mean[ids[i]]) / m;
    std::vector<double> xhat(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const int64_t k = ids[i];
        xhat[i] = (x[i] - r.mean[k]) / std::sqrt(r.var[k] + eps);
        r.y.push_back(xhat[i] * gamma[k] + beta[k]);
        r.gbeta[k] += gy[i];
        r.ggamma[k] += gy[i] * xhat[i];
    }
    for (size_t i = 0; i < x.size(); ++i) {
        const int64_t k = ids[i];
        r.gx.push_back(gamma[k] / std::sqrt(r.var[k] + eps) * (gy[i] - (xhat[i] * r.ggamma[k] + r.gbeta[k]) / m));
    }
    return r;
}

std::vector<double> values(int64_t n, double scale, double shift) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(shift + scale * std::sin(static_cast<double>(i) * 1.7 + 0.3));
    return v;
}

struct Case {
    Shape shape;
    Axes axes;
    Shape channel_shape;
};

}  // namespace

TEST_CASE("ops::batch_norm and batch_norm_backward match a float64 reference", "[core][ops][normalization]") {
    const Case cases[] = {{{4, 3, 5}, {0, 2}, {3}},       {{6, 3}, {0}, {3}},        {{2, 3, 4, 5}, {0, 2}, {3, 5}},
                          {{2, 3, 4, 5}, {0, 2, 3}, {3}}, {{3, 2, 70}, {0, 2}, {2}}, {{2, 4, 3}, {0, 1, 2}, {}},
                          {{3, 4, 2, 2}, {0, 2, 3}, {4}}};
    const double eps = 2e-5;
    for (const Case& cs : cases) {
        const int64_t n = shape_size(cs.shape), c = shape_size(cs.channel_shape);
        const std::vector<double> xv = values(n, 2.0, 10.0), gyv = values(n, 0.7, 0.1);
        const std::vector<double> gv = values(c, 0.5, 1.0), bv = values(c, 0.3, -0.2);
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            const Array xr = testing::make_array(xv, cs.shape, dtype).astype(Dtype::kFloat64);
            const Array gyr = testing::make_array(gyv, cs.shape, dtype).astype(Dtype::kFloat64);
            const Reference ref =
                reference(testing::to_doubles(xr), gv, bv, testing::to_doubles(gyr), cs.shape, cs.axes, eps);
            for (const Layout layout : testing::kAllLayouts) {
                INFO("shape " << cs.shape << " axes " << cs.axes << " " << dtype_name(dtype) << " "
                              << testing::layout_name(layout));
                const Array x = testing::make_array(xv, cs.shape, dtype, layout);
                const Array gamma = testing::make_array(gv, cs.channel_shape, dtype);
                const Array beta = testing::make_array(bv, cs.channel_shape, dtype);
                const ops::BatchNormResult r = ops::batch_norm(x, gamma, beta, cs.axes, eps);
                const testing::Tolerance tol = testing::tolerance(dtype);
                CHECK(r.y.dtype() == dtype);
                testing::check_allclose(r.y, ref.y, cs.shape, tol);
                testing::check_allclose(r.mean, ref.mean, cs.channel_shape, tol);
                std::vector<double> inv_std;
                for (double v : ref.var) inv_std.push_back(1.0 / std::sqrt(v + eps));
                testing::check_allclose(r.inv_std, inv_std, cs.channel_shape, tol);

                const Array gy = testing::make_array(gyv, cs.shape, dtype, layout);
                const ops::BatchNormGrads g = ops::batch_norm_backward(x, gamma, r.mean, r.inv_std, gy, cs.axes);
                CHECK(g.gx.dtype() == dtype);
                CHECK(g.ggamma.dtype() == dtype);
                testing::check_allclose(g.gx, ref.gx, cs.shape, {tol.atol * 4, tol.rtol * 4});
                testing::check_allclose(g.ggamma, ref.ggamma, cs.channel_shape, {tol.atol * 10, tol.rtol * 4});
                testing::check_allclose(g.gbeta, ref.gbeta, cs.channel_shape, {tol.atol * 10, tol.rtol * 4});

                const Array var = testing::make_array(ref.var, cs.channel_shape, Dtype::kFloat64).astype(dtype);
                const Array mean = testing::make_array(ref.mean, cs.channel_shape, Dtype::kFloat64).astype(dtype);
                const Array yf = ops::fixed_batch_norm(x, gamma, beta, mean, var, cs.axes, eps);
                testing::check_allclose(yf, ref.y, cs.shape, {tol.atol * 4, tol.rtol * 4});
            }
        }
    }
}

TEST_CASE("ops::batch_norm statistics are exact for large offsets and constant channels",
          "[core][ops][normalization]") {
    // A large common offset must not swamp the variance (the kernel sums around a shift).
    std::vector<double> xv;
    for (int i = 0; i < 2 * 2 * 500; ++i) xv.push_back(1000.0 + (i % 2 == 0 ? 0.5 : -0.5) * (i / 1000));
    const Array x = Array::from_vector(std::vector<float>(xv.begin(), xv.end()), {2, 2, 500});
    const ops::BatchNormResult r = ops::batch_norm(x, ops::ones({2}), ops::zeros({2}), {0, 2}, 2e-5);
    const std::vector<double> inv_std = testing::to_doubles(r.inv_std);
    CHECK(inv_std[0] == Approx(1.0 / std::sqrt(0.125 + 2e-5)).epsilon(1e-5));  // var of 0, +-0.5 halves
    CHECK(inv_std[1] == Approx(1.0 / std::sqrt(0.125 + 2e-5)).epsilon(1e-5));
    const Array constant = ops::full({4, 3, 2}, 7.0, Dtype::kFloat32);
    const ops::BatchNormResult rc = ops::batch_norm(constant, ops::ones({3}), ops::zeros({3}), {0, 2}, 1e-5);
    testing::check_allclose(rc.y, std::vector<double>(24, 0.0), {4, 3, 2}, {1e-6, 0});
}

TEST_CASE("ops::batch_norm threads give the result of one thread", "[core][ops][normalization]") {
    const Shape shape{8, 16, 40, 40};
    const Array x = testing::make_array(values(shape_size(shape), 1.0, 0.5), shape, Dtype::kFloat32);
    const Array gamma = testing::make_array(values(16, 0.5, 1.0), {16}, Dtype::kFloat32);
    const Array beta = ops::zeros({16});
    const ops::BatchNormResult many = ops::batch_norm(x, gamma, beta, {0, 2, 3}, 2e-5);
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    const ops::BatchNormResult one = ops::batch_norm(x, gamma, beta, {0, 2, 3}, 2e-5);
    omp_set_num_threads(saved);
    CHECK(testing::to_doubles(many.mean) == testing::to_doubles(one.mean));
    CHECK(testing::to_doubles(many.y) == testing::to_doubles(one.y));
}

TEST_CASE("ops::batch_norm rejects bad shapes and dtypes", "[core][ops][normalization]") {
    const Array x = ops::zeros({2, 3, 4});
    CHECK_THROWS_WITH(ops::batch_norm(x, ops::ones({4}), ops::zeros({4}), {0, 2}, 1e-5),
                      Catch::Contains("gamma.shape=(4,)"));
    CHECK_THROWS_AS(ops::batch_norm(ops::zeros({2, 3}, Dtype::kInt32), ops::ones({3}), ops::zeros({3}), {0}, 1e-5),
                    DtypeError);
    CHECK_THROWS_AS(ops::batch_norm(x, ops::ones({3}), ops::zeros({3}), {0, 3}, 1e-5), DimensionError);
}

TEST_CASE("ops::batch_norm statistics stay accurate over long float32 rows", "[core][ops][normalization]") {
    const int64_t n = 300000;
    const std::vector<double> v = values(n, 1.0, 3.0);
    double mean = 0, var = 0;
    for (double e : v) mean += static_cast<double>(static_cast<float>(e)) / static_cast<double>(n);
    for (double e : v) {
        const double d = static_cast<double>(static_cast<float>(e)) - mean;
        var += d * d / static_cast<double>(n);
    }
    const Array x = testing::make_array(v, {1, n}, Dtype::kFloat32);
    const ops::BatchNormResult r = ops::batch_norm(x, ops::ones({}), ops::zeros({}), {0, 1}, 0.0);
    CHECK(r.mean.item<double>() == Approx(mean).epsilon(1e-6));
    CHECK(r.inv_std.item<double>() == Approx(1.0 / std::sqrt(var)).epsilon(1e-5));
}
