// Gradient buckets (distributed/detail/grad_buckets.h), the one gradient path of every
// communicator: they start during backward, in index order, give the mean of the grads over
// the ranks, and hold the grads themselves (backward writes into them: nothing is packed).

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/leaf_grad_hook.h"
#include "core/ops/creation.h"
#include "distributed/detail/grad_buckets.h"
#include "tests/distributed/optimizer/optimizer_testing.h"

using namespace rensa;
using namespace rensa::test_mnopt;
namespace dd = rensa::distributed::detail;

namespace {

// Each rank's grads of `model` on its slice, averaged with one allreduce each (the reference).
std::vector<Array> reference_means(distributed::Communicator& comm, Mlp& model, const dd::NamedParams& params) {
    model.cleargrads();
    mse(model, local_batch(comm)).backward();
    std::vector<Array> expected;
    for (const auto& [name, p] : params) expected.push_back(comm.allreduce(p.grad(), distributed::ReduceOp::kMean));
    return expected;
}

// One hooked step: reset, backward with the leaf-grad hook, finish.
void hooked_step(dd::GradBuckets& buckets, Mlp& model, const Batch& batch, bool zero_fill = true) {
    buckets.reset();
    model.cleargrads();
    {
        LeafGradHookScope scope{[&](const Variable& leaf) { buckets.grad_ready(leaf); }};
        mse(model, batch).backward();
    }
    buckets.start_all();
    buckets.finish(zero_fill);
}

}  // namespace

TEST_CASE("grad_buckets: buckets start during backward, in order, and average the grads", "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("flat");
    Mlp model;
    fill_params(model);
    const Batch local = local_batch(comm);
    const auto params = dd::sorted_params(model, /*updating_only=*/true);
    const std::vector<Array> expected = reference_means(comm, model, params);

    dd::GradBuckets buckets(params, comm, /*bucket_size_bytes=*/1);
    const size_t count = buckets.bucket_count();
    std::vector<size_t> started_at_report;  // buckets started after each report
    buckets.reset();
    model.cleargrads();
    {
        LeafGradHookScope scope{[&](const Variable& leaf) {
            buckets.grad_ready(leaf);
            started_at_report.push_back(buckets.started());
        }};
        mse(model, local).backward();
    }
    const bool all_started_by_backward = buckets.all_started();
    buckets.finish(/*zero_fill=*/true);

    CHECK(count == params.size());  // 1-byte buckets: one parameter each
    CHECK(all_started_by_backward);
    REQUIRE(started_at_report.size() == params.size());
    for (size_t i = 0; i < started_at_report.size(); ++i) CHECK(started_at_report[i] <= i + 1);
    for (size_t i = 0; i < params.size(); ++i) testing::check_allclose(params[i].second.grad(), expected[i]);

    // Reused layout: matches() is true for the same parameters, false after a change.
    CHECK(buckets.matches(dd::sorted_params(model, true)));
    model.l2->disable_update();
    CHECK_FALSE(buckets.matches(dd::sorted_params(model, true)));
}

TEST_CASE("grad_buckets: a bucket whose grads are final waits for its predecessors", "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("naive");
    Mlp model;
    fill_params(model);
    const auto params = dd::sorted_params(model, true);  // l1/W, l1/b, ...: bucket 0 holds l1/W
    dd::GradBuckets buckets(params, comm, 1);
    model.cleargrads();
    mse(model, local_batch(comm)).backward();
    buckets.reset();
    // Report the last parameter (the last bucket) first: nothing may start yet.
    buckets.grad_ready(params.back().second);
    const size_t started_early = buckets.started();
    for (const auto& [name, p] : params) buckets.grad_ready(p);
    const size_t started_late = buckets.started();
    buckets.finish(true);
    CHECK(started_early == 0);
    CHECK(started_late == params.size());
}

TEST_CASE("grad_buckets: grads live in the buckets and backward writes them there", "[distributed][optimizer]") {
    for (const char* kind : {"flat", "naive", "hierarchical", "dummy"}) {
        SECTION(kind) {
            distributed::Communicator& comm = *comm_of(kind);
            Mlp model;
            fill_params(model);
            const auto params = dd::sorted_params(model, true);
            std::vector<Array> expected = reference_means(comm, model, params);
            if (std::string(kind) == "dummy") {  // no reduction: this rank's own grads
                expected.clear();
                for (const auto& [name, p] : params) expected.push_back(p.grad().copy());
            }
            dd::GradBuckets buckets(params, comm, /*bucket_size_bytes=*/256);
            // First step: grads computed elsewhere are copied in.
            hooked_step(buckets, model, local_batch(comm));
            for (size_t i = 0; i < params.size(); ++i) testing::check_allclose(params[i].second.grad(), expected[i]);
            // Then backward fills the buckets itself: after backward each grad is its slot.
            buckets.install_destinations();
            buckets.reset();
            model.cleargrads();
            std::vector<bool> in_slot;  // each grad is its slot when reported
            {
                LeafGradHookScope scope{[&](const Variable& leaf) {
                    in_slot.push_back(leaf.grad().raw_data() == leaf.grad_destination().raw_data());
                    buckets.grad_ready(leaf);
                }};
                mse(model, local_batch(comm)).backward();
            }
            buckets.finish(true);
            REQUIRE(in_slot.size() == params.size());
            for (const bool d : in_slot) CHECK(d);
            for (size_t i = 0; i < params.size(); ++i) {
                const Array g = params[i].second.grad();
                testing::check_allclose(g, expected[i]);
                CHECK(g.raw_data() == params[i].second.grad_destination().raw_data());
            }
        }
    }
}

TEST_CASE("grad_buckets: user-made grads, missing grads and zero_fill", "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("flat");
    Mlp model;
    fill_params(model);
    const auto params = dd::sorted_params(model, true);
    dd::GradBuckets buckets(params, comm, 64);
    buckets.install_destinations();
    const links::Parameter& w = model.l2->W;
    const links::Parameter& b = model.l2->b;
    // Rank r sets W's grad to a fresh array of (r + 1): the mean is (size + 1) / 2, and
    // the user's array is left as it was (copied in, not reduced in place).
    const double mine = comm.rank() + 1.0;
    buckets.reset();
    model.cleargrads();
    const Array user = ops::full(w.shape(), mine, w.dtype());
    w.set_grad(user);
    buckets.start_all();
    buckets.finish(/*zero_fill=*/false);
    const double mean = (comm.size() + 1) / 2.0;
    testing::check_allclose(w.grad(), ops::full(w.shape(), mean, w.dtype()));
    testing::check_allclose(user, ops::full(w.shape(), mine, w.dtype()));
    CHECK_FALSE(b.grad().defined());  // no grad anywhere and no zero_fill: stays None

    // Only rank 0 has b's grad: zero_fill gives everyone the mean (rank 0's / size);
    // without zero_fill the ranks that had none keep None.
    for (const bool zero_fill : {true, false}) {
        buckets.reset();
        model.cleargrads();
        if (comm.rank() == 0) b.set_grad(ops::full(b.shape(), 6.0, b.dtype()));
        buckets.start_all();
        buckets.finish(zero_fill);
        if (zero_fill || comm.rank() == 0) {
            REQUIRE(b.grad().defined());
            testing::check_allclose(b.grad(), ops::full(b.shape(), 6.0 / comm.size(), b.dtype()));
        } else {
            CHECK_FALSE(b.grad().defined());
        }
    }
}

TEST_CASE("grad_buckets: float16 and bfloat16 reduction, summed in float32", "[distributed][optimizer]") {
    for (const Dtype half : {Dtype::kFloat16, Dtype::kBFloat16}) {
        DYNAMIC_SECTION(half) {
            distributed::CommunicatorOptions options;
            options.allreduce_grad_dtype = half;
            const auto comm = distributed::create_communicator("flat", options);
            Mlp model;
            fill_params(model);
            const auto params = dd::sorted_params(model, true);
            const std::vector<Array> expected = reference_means(*comm, model, params);
            dd::GradBuckets buckets(params, *comm, 1 << 20);
            buckets.install_destinations();
            for (int step = 0; step < 2; ++step) hooked_step(buckets, model, local_batch(*comm));
            for (size_t i = 0; i < params.size(); ++i) {
                const Array g = params[i].second.grad();
                CHECK(g.dtype() == Dtype::kFloat32);  // cast back into the grads' dtype
                testing::check_allclose(g, expected[i], testing::tolerance(half));
            }
            // Large values whose sum over the ranks overflows float16 (but not their mean):
            // accumulated in float32, the mean comes out finite.
            buckets.reset();
            model.cleargrads();
            const links::Parameter& w = model.l1->W;
            w.set_grad(ops::full(w.shape(), 60000.0 + 16.0 * comm->rank(), w.dtype()));
            buckets.start_all();
            buckets.finish(true);
            const double mean = 60000.0 + 8.0 * (comm->size() - 1);
            testing::check_allclose(w.grad(), ops::full(w.shape(), mean, w.dtype()), {.atol = 0, .rtol = 1e-2});
        }
    }
}

TEST_CASE("grad_buckets: hierarchical gives flat's results", "[distributed][optimizer]") {
    distributed::Communicator& flat = *comm_of("flat");
    distributed::Communicator& hier = *comm_of("hierarchical");
    Mlp a, b;
    // Dyadic values: every sum is exact, whatever the order, so the results must be equal.
    for (auto* m : {&a, &b}) {
        fill_params(*m);
        for (const links::Parameter& p : m->params(false)) {
            p.array().assign(ops::full(p.shape(), 0.25 * (flat.rank() + 1), p.dtype()));
        }
    }
    const auto pa = dd::sorted_params(a, true), pb = dd::sorted_params(b, true);
    dd::GradBuckets ba(pa, flat, 128), bb(pb, hier, 128);
    ba.install_destinations();
    bb.install_destinations();
    for (int step = 0; step < 2; ++step) {
        hooked_step(ba, a, local_batch(flat));
        hooked_step(bb, b, local_batch(hier));
    }
    for (size_t i = 0; i < pa.size(); ++i) {
        testing::check_allclose(pb[i].second.grad(), pa[i].second.grad(), {.atol = 1e-6, .rtol = 1e-6});
    }
    // Exact sums: each rank's grads set to k / 8.
    for (auto [buckets, params] : {std::pair{&ba, &pa}, std::pair{&bb, &pb}}) {
        buckets->reset();
        for (const auto& [name, p] : *params) p.set_grad(ops::full(p.shape(), (flat.rank() + 1) / 8.0, p.dtype()));
        buckets->start_all();
        buckets->finish(true);
    }
    for (size_t i = 0; i < pa.size(); ++i) {
        CHECK(pb[i].second.grad().to_vector<double>() == pa[i].second.grad().to_vector<double>());
    }
}
