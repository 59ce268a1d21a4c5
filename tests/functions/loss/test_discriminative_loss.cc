// discriminative_margin_based_clustering_loss: the three terms against float64 loops for
// norms 1 and 2, gradients (norm 1: the L2 norm of a masked-out pixel is sqrt(0), whose
// gradient is NaN in Chainer too), errors.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kN = 2, kC = 3, kH = 2, kW = 3, kHW = kH * kW;
constexpr double kDeltaV = 0.3, kDeltaD = 0.8;
// Instance ids per pixel (0: background, 4: beyond max_embedding_dim, ignored).
const std::vector<double> kLabels = {1, 1, 2, 0, 3, 2, 2, 4, 1, 1, 0, 2};

double norm(const std::vector<double>& v, int p) {
    double s = 0;
    for (const double x : v) s += p == 1 ? std::abs(x) : x * x;
    return p == 1 ? s : std::sqrt(s);
}

Arrays dml_reference(const Arrays& xs, int p, double alpha, double beta, double gamma) {
    const std::vector<double> e = to_doubles(xs[0]), l = to_doubles(xs[1]);
    const auto emb = [&](int64_t n, int64_t d, int64_t q) { return e[(n * kC + d) * kHW + q]; };
    const auto in = [&](int64_t k, int64_t n, int64_t q) { return l[n * kHW + q] == static_cast<double>(k + 1); };
    std::vector<std::vector<std::vector<double>>> mu(kC, std::vector<std::vector<double>>(kN));
    double reg = 0, var = 0, dist = 0;
    for (int64_t k = 0; k < kC; ++k) {
        std::vector<double> all;
        double pixels = 0, vk = 0;
        for (int64_t n = 0; n < kN; ++n) {
            double count = 0;
            std::vector<double> m(kC, 0.0);
            for (int64_t q = 0; q < kHW; ++q) {
                if (!in(k, n, q)) continue;
                count += 1;
                for (int64_t d = 0; d < kC; ++d) m[d] += emb(n, d, q);
            }
            for (double& v : m) v /= std::max(count, 1.0);
            mu[k][n] = m;
            all.insert(all.end(), m.begin(), m.end());
            pixels += count;
            for (int64_t q = 0; q < kHW; ++q) {
                if (!in(k, n, q)) continue;
                std::vector<double> diff;
                for (int64_t d = 0; d < kC; ++d) diff.push_back(m[d] - emb(n, d, q));
                vk += std::pow(std::max(norm(diff, p) - kDeltaV, 0.0), 2);
            }
        }
        reg += norm(all, p);
        var += vk / std::max(pixels, 1.0);
    }
    int64_t pairs = 0;
    for (int64_t a = 0; a < kC; ++a) {
        for (int64_t b = a + 1; b < kC; ++b, ++pairs) {
            for (int64_t n = 0; n < kN; ++n) {
                std::vector<double> diff;
                for (int64_t d = 0; d < kC; ++d) diff.push_back(mu[a][n][d] - mu[b][n][d]);
                dist += std::pow(std::max(2 * kDeltaD - norm(diff, p), 0.0), 2);
            }
        }
    }
    return {f64({alpha * var / kC}, {}), f64({beta * dist / static_cast<double>(pairs * kN)}, {}),
            f64({gamma * reg / (kC * kN)}, {})};
}

}  // namespace

TEST_CASE("discriminative_margin_based_clustering_loss", "[functions][loss]") {
    for (const int p : {1, 2}) {
        check_function({
            .name = "discriminative_margin_based_clustering_loss norm " + std::to_string(p),
            .inputs = {{.shape = {kN, kC, kH, kW}, .values = distinct()},
                       {.shape = {kN, kH, kW},
                        .values = [](int64_t, uint64_t) { return kLabels; },
                        .dtype = Dtype::kInt32}},
            .func =
                [=](const Vars& xs) {
                    const auto [v, d, r] = F::discriminative_margin_based_clustering_loss(
                        xs[0], xs[1], kDeltaV, kDeltaD, kC, p, 1.0, 0.5, 0.1);
                    return Vars{v, d, r};
                },
            .reference = [=](const Arrays& xs) { return dml_reference(xs, p, 1.0, 0.5, 0.1); },
            .backward = p == 1,
            .double_backward = p == 1,
        });
    }
}

TEST_CASE("discriminative_margin_based_clustering_loss: errors", "[functions][loss]") {
    const Variable e(ops::zeros({2, 3, 2, 2})), l(ops::zeros({2, 2, 2}, Dtype::kInt32));
    const auto f = [](const Variable& e, const Variable& l, int64_t c, int p) {
        return F::discriminative_margin_based_clustering_loss(e, l, 0.5, 1.5, c, p);
    };
    CHECK_THROWS_WITH(f(e, l, 0, 1), Catch::Contains("Expect: max_embedding_dim > 0"));
    CHECK_THROWS_WITH(f(e, l, 3, 3), Catch::Contains("Expect: norm in (1, 2), Actual: norm = 3"));
    CHECK_THROWS_WITH(f(e, l, 4, 1), Catch::Contains("Expect: embeddings.shape[1] == max_embedding_dim"));
    CHECK_THROWS_AS(f(e, Variable(ops::zeros({2, 2, 3}, Dtype::kInt32)), 3, 1), DimensionError);
    CHECK_THROWS_AS(f(e, Variable(ops::zeros({2, 2, 2})), 3, 1), DtypeError);
    CHECK_THROWS_AS(f(Variable(ops::zeros({2, 3, 4})), l, 3, 1), DimensionError);
}
