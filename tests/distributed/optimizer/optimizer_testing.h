#pragma once
// Helpers of the multi-node optimizer tests: a small MLP, a fixed global batch of which
// each rank takes its slice, deterministic parameters and cross-rank checks.

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/communicator.h"
#include "functions/activation.h"
#include "functions/loss.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "tests/distributed/distributed_testing.h"
#include "tests/testing/testing.h"

namespace rensa::test_mnopt {

inline distributed::CommunicatorPtr comm_of(const std::string& name) {
    // Both kinds first, in the same order on every rank (creation is collective).
    rensa::testing::shared_comm("naive");
    rensa::testing::shared_comm("flat");
    return rensa::testing::shared_comm(name);
}

constexpr int64_t kBatch = 12;  // divisible by 1, 2 and 3: equal slices, mean of means = mean
constexpr int64_t kIn = 5, kHidden = 7, kOut = 3;

// l1 -> tanh -> l2 -> tanh -> l3; l1 lazy when asked (Linear(None, n)).
class Mlp : public links::Cloneable<Mlp, links::Chain> {
public:
    std::shared_ptr<links::Linear> l1, l2, l3;
    explicit Mlp(bool lazy = false) {
        register_link("l1", &Mlp::l1,
                      std::make_shared<links::Linear>(lazy ? std::nullopt : std::optional<int64_t>{kIn}, kHidden));
        register_link("l2", &Mlp::l2, std::make_shared<links::Linear>(kHidden, kHidden));
        register_link("l3", &Mlp::l3, std::make_shared<links::Linear>(kHidden, kOut));
    }
    Variable forward(const Variable& x) override { return (*l3)(F::tanh((*l2)(F::tanh((*l1)(x))))); }
};

// Deterministic values (the same on every rank) in every initialised parameter.
inline void fill_params(const links::Link& link, double shift = 0.0) {
    int k = 1;
    for (const links::Parameter& p : link.params(/*include_uninit=*/false)) {
        std::vector<double> values(static_cast<size_t>(p.array().size()));
        for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5 * std::sin(0.7 * k * (i + 1) + shift);
        p.array().assign(Array::from_vector(values, p.shape()));
        ++k;
    }
}

// The fixed global batch: x (kBatch, kIn), t (kBatch, kOut), float32.
inline Array global_x() {
    std::vector<double> v(kBatch * kIn);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::cos(0.37 * i) * 1.5;
    return Array::from_vector(v, {kBatch, kIn}).astype(Dtype::kFloat32);
}
inline Array global_t() {
    std::vector<double> v(kBatch * kOut);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.23 * i + 1.0);
    return Array::from_vector(v, {kBatch, kOut}).astype(Dtype::kFloat32);
}
// Rows of `rank` among `size` equal slices.
inline Variable slice_rows(const Array& a, int rank, int size) {
    const int64_t n = a.shape()[0] / size;
    return Variable(a.index({Slice{rank * n, (rank + 1) * n}}).copy(), false);
}

struct Batch {
    Variable x, t;
};
inline Batch local_batch(const distributed::Communicator& comm) {
    return {slice_rows(global_x(), comm.rank(), comm.size()), slice_rows(global_t(), comm.rank(), comm.size())};
}
inline Batch whole_batch() { return {Variable(global_x(), false), Variable(global_t(), false)}; }

inline Variable mse(links::Link& model, const Batch& batch) { return F::mean_squared_error(model(batch.x), batch.t); }

// max - min over the ranks of every parameter: 0 when all ranks hold the same values.
inline double cross_rank_spread(distributed::Communicator& comm, const links::Link& model) {
    double spread = 0;
    for (const links::Parameter& p : model.params(false)) {
        const Array hi = comm.allreduce(p.array(), distributed::ReduceOp::kMax);
        const Array lo = comm.allreduce(p.array(), distributed::ReduceOp::kMin);
        const std::vector<double> h = hi.to_vector<double>(), l = lo.to_vector<double>();
        for (size_t i = 0; i < h.size(); ++i) spread = std::max(spread, h[i] - l[i]);
    }
    return spread;
}

// Largest |a - b| over the parameters of two models of the same structure.
inline double max_param_diff(const links::Link& a, const links::Link& b) {
    const auto pa = a.namedparams(false), pb = b.namedparams(false);
    REQUIRE(pa.size() == pb.size());
    double diff = 0;
    for (size_t i = 0; i < pa.size(); ++i) {
        const std::vector<double> x = pa[i].second.array().to_vector<double>();
        const std::vector<double> y = pb[i].second.array().to_vector<double>();
        REQUIRE(x.size() == y.size());
        for (size_t j = 0; j < x.size(); ++j) diff = std::max(diff, std::abs(x[j] - y[j]));
    }
    return diff;
}

}  // namespace rensa::test_mnopt
