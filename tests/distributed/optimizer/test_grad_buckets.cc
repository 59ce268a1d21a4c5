// Gradient buckets (distributed/detail/grad_buckets.h) driven by the leaf-grad hook: they
// start during backward, in index order, and give the mean of the grads over the ranks.

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "autograd/leaf_grad_hook.h"
#include "distributed/detail/grad_buckets.h"
#include "tests/distributed/optimizer/optimizer_testing.h"

using namespace rensa;
using namespace rensa::test_mnopt;

TEST_CASE("grad_buckets: buckets start during backward, in order, and average the grads", "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("flat");
    Mlp model;
    fill_params(model);
    const Batch local = local_batch(comm);

    // Reference: this rank's grads, averaged with one allreduce each.
    model.cleargrads();
    mse(model, local).backward();
    std::vector<Array> expected;
    for (const auto& [name, p] : distributed::detail::bucketed_params(model)) {
        expected.push_back(comm.allreduce(p.grad(), distributed::ReduceOp::kMean));
    }

    const auto params = distributed::detail::bucketed_params(model);
    distributed::detail::GradBuckets buckets(params, /*bucket_size_bytes=*/1, std::nullopt);
    const size_t count = buckets.bucket_count();
    std::vector<size_t> started_at_report;  // buckets started after each report
    buckets.reset();
    model.cleargrads();
    {
        LeafGradHookScope scope{[&](const Variable& leaf) {
            buckets.grad_ready(leaf, comm);
            started_at_report.push_back(buckets.started());
        }};
        mse(model, local).backward();
    }
    const bool all_started_by_backward = buckets.all_started();
    buckets.finish(1.0 / comm.size(), /*zero_fill=*/true);

    CHECK(count == params.size());  // 1-byte buckets: one parameter each
    CHECK(all_started_by_backward);
    REQUIRE(started_at_report.size() == params.size());
    CHECK(started_at_report[started_at_report.size() / 2] > 0);  // overlap: started before the end
    for (size_t i = 0; i < started_at_report.size(); ++i) CHECK(started_at_report[i] <= i + 1);
    for (size_t i = 0; i < params.size(); ++i) testing::check_allclose(params[i].second.grad(), expected[i]);

    // Reused layout: matches() is true for the same parameters, false after a change.
    CHECK(buckets.matches(distributed::detail::bucketed_params(model)));
    model.l2->disable_update();
    CHECK_FALSE(buckets.matches(distributed::detail::bucketed_params(model)));
}

TEST_CASE("grad_buckets: a bucket whose grads are final waits for its predecessors", "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("naive");
    Mlp model;
    fill_params(model);
    const auto params = distributed::detail::bucketed_params(model);    // sorted: l1/W, l1/b, ...
    distributed::detail::GradBuckets buckets(params, 1, std::nullopt);  // bucket 0 holds the last name
    model.cleargrads();
    mse(model, local_batch(comm)).backward();
    buckets.reset();
    // Report the first name (the last bucket) first: nothing may start yet.
    buckets.grad_ready(params.front().second, comm);
    const size_t started_early = buckets.started();
    for (auto it = params.rbegin(); it != params.rend(); ++it) buckets.grad_ready(it->second, comm);
    const size_t started_late = buckets.started();
    buckets.finish(1.0 / comm.size(), true);
    CHECK(started_early == 0);
    CHECK(started_late == params.size());
}
