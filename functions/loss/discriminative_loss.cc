// discriminative_margin_based_clustering_loss: Chainer's composite (variance, distance and
// regularisation terms), the instance masks built on the device from the labels.

#include <tuple>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/loss.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

constexpr const char* kName = "discriminative_margin_based_clustering_loss";

// L1 (sum |x|) or L2 (sqrt(sum x^2)) norm over `axes`.
Variable norm(const Variable& x, const Axes& axes, int p) {
    return p == 1 ? sum(absolute(x), axes) : sqrt(sum(x * x, axes));
}

void check_inputs(const Variable& embeddings, const Variable& labels, int64_t max_embedding_dim, int p) {
    RENSA_CHECK(max_embedding_dim > 0, ValueError, kName,
                ": Expect: max_embedding_dim > 0, Actual: max_embedding_dim = ", max_embedding_dim);
    RENSA_CHECK(p == 1 || p == 2, ValueError, kName, ": Expect: norm in (1, 2), Actual: norm = ", p);
    expect_float(embeddings, kName, "embeddings");
    expect_integer(labels, kName, "labels");
    expect_ndim(embeddings, 4, kName, "embeddings");
    expect_ndim(labels, 3, kName, "labels");
    const Shape& e = embeddings.shape();
    RENSA_CHECK(e[1] == max_embedding_dim, DimensionError, kName,
                ": Expect: embeddings.shape[1] == max_embedding_dim, Actual: ", e[1], " != ", max_embedding_dim);
    expect_shape(labels, Shape{e[0], e[2], e[3]}, kName, "labels");
}

// Every pair (a, b), a < b, of the C instance means (C, N, D) as two gathers (P, N, D).
std::pair<Variable, Variable> mean_pairs(const Variable& means) {
    const int64_t c = means.shape()[0];
    std::vector<int64_t> first, second;
    for (int64_t a = 0; a < c; ++a) {
        for (int64_t b = a + 1; b < c; ++b) {
            first.push_back(a);
            second.push_back(b);
        }
    }
    const auto index = [&](const std::vector<int64_t>& v) {
        return Array::from_vector(v, {static_cast<int64_t>(v.size())}).to_device(means.device());
    };
    return {get_item(means, index(first)), get_item(means, index(second))};
}

}  // namespace

std::tuple<Variable, Variable, Variable> discriminative_margin_based_clustering_loss(
    const Variable& embeddings, const Variable& labels, double delta_v, double delta_d, int64_t max_embedding_dim,
    int norm_order, double alpha, double beta, double gamma) {
    check_inputs(embeddings, labels, max_embedding_dim, norm_order);
    const int64_t n = embeddings.shape()[0], c = max_embedding_dim;
    const int64_t h = embeddings.shape()[2], w = embeddings.shape()[3];
    const Dtype dtype = embeddings.dtype();
    // ms[k, n, 0, h, w] = (labels[n, h, w] == k + 1): instance k's pixels (instance 0 is
    // background and has no mask, as in Chainer).
    const Array ids = ops::arange(1, c + 1, 1, labels.dtype(), labels.device()).reshape({c, 1, 1, 1});
    const Array ms = ops::equal(labels.array().reshape({1, n, h, w}), ids).astype(dtype).reshape({c, n, 1, h, w});
    // Mean embedding of each instance in each image, (C, N, D).
    const Variable emb = reshape(embeddings, {1, n, c, h, w});
    const Array counts = ops::maximum(ops::sum(ms, Axes{2, 3, 4}), 1.0).reshape({c, n, 1});
    const Variable means = sum(emb * as_variable(ms), Axes{3, 4}) / as_variable(counts);

    const Variable l_reg = sum(norm(means, {1, 2}, norm_order)) / static_cast<double>(c * n);

    const Variable spread = norm((reshape(means, {c, n, c, 1, 1}) - emb) * as_variable(ms), {2}, norm_order);
    const Variable hinge_v = relu(spread - delta_v);
    const Array pixels = ops::maximum(ops::sum(ms, Axes{1, 2, 3, 4}), 1.0);
    const Variable l_var = sum(sum(hinge_v * hinge_v, Axes{1, 2, 3}) / as_variable(pixels)) / static_cast<double>(c);

    Variable l_dist = Variable(ops::zeros({}, dtype, embeddings.device()), false);
    if (c > 1) {
        const auto [m_a, m_b] = mean_pairs(means);
        const Variable hinge_d = relu(2.0 * delta_d - norm(m_a - m_b, {2}, norm_order));
        l_dist = sum(hinge_d * hinge_d) / static_cast<double>(m_a.shape()[0] * n);
    }
    return {l_var * alpha, l_dist * beta, l_reg * gamma};
}

}  // namespace rensa::functions
