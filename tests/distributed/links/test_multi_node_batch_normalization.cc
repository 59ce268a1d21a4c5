// MultiNodeBatchNormalization against the single-process BatchNormalization on the
// concatenated batch (uneven batches: rank r holds 2 + r samples), a numerical gradient
// check of the global loss, test mode and errors. Every rank builds every rank's data
// (deterministic seeds), computes first and checks last.

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/modes.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/manipulation.h"
#include "distributed/communicator.h"
#include "distributed/links/multi_node_batch_normalization.h"
#include "links/normalization/batch_normalization.h"
#include "tests/distributed/distributed_testing.h"
#include "tests/testing/testing.h"

namespace {

using rensa::Array;
using rensa::Dtype;
using rensa::Shape;
using rensa::Variable;
namespace dist = rensa::distributed;
namespace testing = rensa::testing;
namespace L = rensa::links;

const dist::CommunicatorPtr& comm() { return testing::shared_comm("naive"); }

Shape shape_of(int rank, const Shape& tail) {
    Shape s{2 + rank};
    for (const int64_t d : tail) s.push_back(d);
    return s;
}

Array data(int rank, const Shape& tail, Dtype dtype, int seed) {
    const Shape s = shape_of(rank, tail);
    std::vector<double> v = testing::sample(dtype, rensa::shape_size(s), seed * 31 + rank);
    for (size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 0.5 + std::sin(static_cast<double>(i + rank));
    return testing::make_array(v, s, dtype);
}

// Every rank's arrays concatenated along the batch axis.
Array global(int size, const Shape& tail, Dtype dtype, int seed) {
    std::vector<Array> parts;
    for (int r = 0; r < size; ++r) parts.push_back(data(r, tail, dtype, seed));
    return rensa::ops::concatenate(parts, 0);
}

// This rank's rows of a concatenated array.
Array my_rows(const Array& a, int rank, int size) {
    std::vector<int64_t> cuts;
    int64_t offset = 0;
    for (int r = 0; r < size - 1; ++r) cuts.push_back(offset += 2 + r);
    return rensa::ops::split(a, cuts, 0)[static_cast<size_t>(rank)];
}

}  // namespace

TEST_CASE("distributed/mnbn: equals BatchNormalization on the concatenated batch", "[distributed][links]") {
    const auto& c = comm();
    const int rank = c->rank(), size = c->size();
    for (const Shape& tail : {Shape{3}, Shape{2, 3, 2}}) {
        const int64_t channels = tail[0];
        L::BatchNormalization ref{channels, {.decay = 0.8}};
        dist::MultiNodeBatchNormalization mn{channels, c, {.decay = 0.8}};
        Variable ys, xs_local;
        Array ref_y, ref_gx;
        for (int step = 0; step < 2; ++step) {  // two steps: the running averages accumulate
            const Variable gx{global(size, tail, Dtype::kFloat32, step)}, x{data(rank, tail, Dtype::kFloat32, step)};
            const Array w = global(size, tail, Dtype::kFloat32, 7 + step);
            ref.cleargrads();
            mn.cleargrads();
            const Variable y_ref = ref(gx);
            rensa::sum(y_ref * Variable(w, false)).backward();
            ys = mn(x);
            rensa::sum(ys * Variable(my_rows(w, rank, size), false)).backward();
            xs_local = x;
            ref_y = my_rows(y_ref.array(), rank, size);
            ref_gx = my_rows(gx.grad(), rank, size);
        }
        const Array ggamma = c->allreduce(mn.gamma.grad()), gbeta = c->allreduce(mn.beta.grad());
        Array test_y, ref_test_y;
        {
            rensa::ConfigScope eval{&rensa::Config::train, false};
            const Variable x{data(rank, tail, Dtype::kFloat32, 5)};
            test_y = mn(x).array();
            ref_test_y = ref(x).array();
        }
        const testing::Tolerance tol{1e-5, 1e-4};
        testing::check_allclose(ys.array(), ref_y, tol);
        testing::check_allclose(xs_local.grad(), ref_gx, tol);
        testing::check_allclose(ggamma, ref.gamma.grad(), tol);
        testing::check_allclose(gbeta, ref.beta.grad(), tol);
        testing::check_allclose(mn.avg_mean, ref.avg_mean, tol);
        testing::check_allclose(mn.avg_var, ref.avg_var, tol);
        testing::check_allclose(test_y, ref_test_y, tol);
    }
}

namespace {

// The global loss sum_r sum(y_r * w_r) (a collective) for this rank's x, gamma, beta.
double global_loss(const Array& x, const Array& gamma, const Array& beta, const Array& w) {
    rensa::NoBackpropMode no_graph;
    const Variable y = dist::multi_node_batch_normalization(Variable(x, false), Variable(gamma, false),
                                                            Variable(beta, false), comm(), {.eps = 1e-3});
    return comm()->allreduce_obj(rensa::sum(y * Variable(w, false)).item(), dist::ReduceOp::kSum);
}

// Central differences of the global loss along element i of input k on rank `owner`;
// every rank evaluates the same number of losses (they are collectives).
double numerical(std::vector<Array> in, int k, int64_t i, bool mine, const Array& w) {
    const double h = 1e-4;
    Array flat = in[static_cast<size_t>(k)].copy();
    const double x0 = mine ? flat.ravel()[i].item<double>() : 0.0;
    auto at = [&](double v) {
        if (mine) flat.ravel()[i].fill(v);
        in[static_cast<size_t>(k)] = flat;
        return global_loss(in[0], in[1], in[2], w);
    };
    const double up = at(x0 + h), down = at(x0 - h);
    return (up - down) / (2 * h);
}

}  // namespace

TEST_CASE("distributed/mnbn: numerical gradient check of the global loss", "[distributed][links]") {
    const auto& c = comm();
    const int rank = c->rank(), size = c->size();
    const Shape tail{2, 2};
    const Array x0 = data(rank, tail, Dtype::kFloat64, 3), w = data(rank, tail, Dtype::kFloat64, 4);
    const Array gamma0 = testing::make_array({1.5, -0.5}, Shape{2}, Dtype::kFloat64);
    const Array beta0 = testing::make_array({0.1, 0.2}, Shape{2}, Dtype::kFloat64);
    const Variable x{x0}, gamma{gamma0}, beta{beta0};
    const Variable y = dist::multi_node_batch_normalization(x, gamma, beta, c, {.eps = 1e-3});
    rensa::sum(y * Variable(w, false)).backward();
    const std::vector<Array> analytic{x.grad(), gamma.grad(), beta.grad()};

    // Ranks take turns perturbing their own inputs while the others hold still.
    std::vector<std::vector<double>> num(3);
    for (int owner = 0; owner < size; ++owner) {
        const int64_t n[3] = {rensa::shape_size(shape_of(owner, tail)), 2, 2};
        for (int k = 0; k < 3; ++k) {
            for (int64_t i = 0; i < n[k]; ++i) {
                const double d = numerical({x0, gamma0, beta0}, k, i, owner == rank, w);
                if (owner == rank) num[static_cast<size_t>(k)].push_back(d);
            }
        }
    }
    for (int k = 0; k < 3; ++k) {
        const Array& a = analytic[static_cast<size_t>(k)];
        testing::check_allclose(a, num[static_cast<size_t>(k)], a.shape(), {1e-5, 1e-4});
    }
}

TEST_CASE("distributed/mnbn: bad arguments are rejected before communicating", "[distributed][links]") {
    const auto& c = comm();
    const Variable x{rensa::ops::ones(Shape{4, 3})}, g{rensa::ops::ones(Shape{3})}, b{rensa::ops::zeros(Shape{3})};
    const Variable g4{rensa::ops::ones(Shape{4})};
    CHECK_THROWS_AS(dist::multi_node_batch_normalization(x, g4, g4, c), rensa::DimensionError);
    CHECK_THROWS_AS(dist::multi_node_batch_normalization(x, g, b, nullptr), rensa::ValueError);
    const Variable xi{rensa::ops::ones(Shape{4, 3}, Dtype::kInt32)};
    CHECK_THROWS_AS(dist::multi_node_batch_normalization(xi, g, b, c), rensa::DtypeError);
    CHECK_THROWS_AS(dist::MultiNodeBatchNormalization(3, nullptr), rensa::ValueError);
    dist::MultiNodeBatchNormalization mn{3, c};
    CHECK(mn.namedparams().size() == 2);
    CHECK(mn.avg_var.shape() == Shape{3});
}
