// The multi-node optimizer against a single-process run on the concatenated batch: the
// first step broadcasts and skips (lazy Linear too), overlap on/off, bucket sizes from
// tiny to default, naive and flat, plain backward + update(), missing grads (zero_fill).

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "distributed/multi_node_optimizer.h"
#include "optimizers/momentum_sgd.h"
#include "optimizers/sgd.h"
#include "tests/distributed/optimizer/optimizer_testing.h"

using namespace rensa;
using namespace rensa::test_mnopt;
using distributed::MultiNodeOptimizerOptions;

namespace {

struct Config {
    std::string comm;
    MultiNodeOptimizerOptions options;
    bool plain_backward = false;  // loss.backward(); opt.update() instead of update(lossfun)
};

std::string describe(const Config& c) {
    return c.comm + " overlap=" + (c.options.overlap ? "1" : "0") +
           " bucket=" + std::to_string(c.options.bucket_size_bytes) + (c.plain_backward ? " plain" : "");
}

void step(optimizers::Optimizer& opt, links::Link& model, const Batch& batch, bool plain) {
    if (!plain) {
        opt.update([&] { return mse(model, batch); });
        return;
    }
    model.cleargrads();
    mse(model, batch).backward();
    opt.update();
}

// Runs `steps` multi-node steps after the broadcast step; returns the largest difference
// from a single-process MomentumSGD run on the whole batch and the cross-rank spread.
std::pair<double, double> run_against_reference(const Config& config, int steps) {
    distributed::Communicator& comm = *comm_of(config.comm);
    auto model = std::make_shared<Mlp>();
    fill_params(*model, /*shift=*/comm.rank());  // differs by rank until the broadcast
    auto opt = distributed::create_multi_node_optimizer(
        std::make_shared<optimizers::MomentumSGD>(optimizers::MomentumSGDOptions{.lr = 0.1, .momentum = 0.9}),
        comm_of(config.comm), config.options);
    opt->setup(model);
    const Batch local = local_batch(comm);
    auto before = std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
    step(*opt, *model, local, config.plain_backward);  // broadcast (no update unless alone)
    const int64_t t_after_broadcast = opt->t;

    // Alone the broadcast changes nothing and the step updates: the reference makes it too.
    const bool updated = t_after_broadcast == 1;
    auto reference = updated ? before : std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
    optimizers::MomentumSGD ref_opt({.lr = 0.1, .momentum = 0.9});
    ref_opt.setup(reference);
    const Batch whole = whole_batch();
    if (updated) ref_opt.update([&] { return mse(*reference, whole); });
    for (int i = 0; i < steps; ++i) {
        step(*opt, *model, local, config.plain_backward);
        ref_opt.update([&] { return mse(*reference, whole); });
    }
    // The weights differ by rank (shift), so the broadcast step skips the update; alone,
    // nothing differs and it updates (Note [Multi-node update]).
    const int64_t first = comm.size() == 1 ? 1 : 0;
    CHECK(t_after_broadcast == first);
    CHECK(opt->t == steps + first);
    return {max_param_diff(*model, *reference), cross_rank_spread(comm, *model)};
}

}  // namespace

TEST_CASE("multi_node_optimizer: parameters match a single-process run on the whole batch",
          "[distributed][optimizer]") {
    const int64_t tiny = 64, medium = 200 * 4;
    const std::vector<Config> configs = {
        {"naive", {.overlap = false}},
        {"flat", {.overlap = false}},
        {"naive", {}},
        {"flat", {}},
        {"flat", {.bucket_size_bytes = tiny}},
        {"naive", {.bucket_size_bytes = 1}},
        {"flat", {.bucket_size_bytes = medium}},
        {"flat", {.bucket_size_bytes = tiny}, /*plain_backward=*/true},
        {"naive", {.overlap = false}, /*plain_backward=*/true},
    };
    for (const Config& config : configs) {
        const auto [diff, spread] = run_against_reference(config, 4);
        INFO(describe(config) << ": diff " << diff << ", spread " << spread);
        CHECK(diff < 2e-5);
        CHECK(spread == 0.0);
    }
}

TEST_CASE("multi_node_optimizer: a lazy Linear(None, n) is broadcast at the first step, which skips the update",
          "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("flat");
    auto model = std::make_shared<Mlp>(/*lazy=*/true);
    auto actual = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.2});
    auto opt = distributed::create_multi_node_optimizer(actual, comm_of("flat"));
    opt->setup(model);
    const bool lazy_before = !model->l1->W.is_initialized();
    const Batch local = local_batch(comm);
    // Initialise l1 on every rank with rank-dependent values, then the first update.
    fill_params(*model, comm.rank());
    (void)mse(*model, local);
    fill_params(*model, comm.rank());
    const Array root_w = comm.bcast(model->l1->W.array().copy(), 0);
    opt->update([&] { return mse(*model, local); });
    const double spread_after_first = cross_rank_spread(comm, *model);
    const double w_diff = testing::to_doubles(model->l1->W.array()) == testing::to_doubles(root_w) ? 0.0 : 1.0;
    const int64_t t_after_first = opt->t;

    auto reference = std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
    optimizers::SGD ref_opt({.lr = 0.2});
    ref_opt.setup(reference);
    for (int i = 0; i < 3; ++i) {
        opt->update([&] { return mse(*model, local); });
        ref_opt.update([&] { return mse(*reference, whole_batch()); });
    }
    const int64_t first = comm.size() == 1 ? 1 : 0;  // alone, the broadcast changed nothing
    CHECK(lazy_before);
    CHECK(t_after_first == first);
    CHECK(spread_after_first == 0.0);
    if (first == 0) CHECK(w_diff == 0.0);  // rank 0's values everywhere (alone it also updated)
    CHECK(opt->t == 3 + first);
    CHECK(actual->t == 3 + first);
    CHECK(max_param_diff(*model, *reference) < 2e-5);
    CHECK(cross_rank_spread(comm, *model) == 0.0);
}

// Rank 0's loss also uses an extra layer; on the other ranks its grad is None.
class TwoHeads : public links::Cloneable<TwoHeads, links::Chain> {
public:
    std::shared_ptr<links::Linear> body, extra;
    bool use_extra = true;
    TwoHeads() {
        register_link("body", &TwoHeads::body, std::make_shared<links::Linear>(kIn, kOut));
        register_link("extra", &TwoHeads::extra, std::make_shared<links::Linear>(kIn, kOut));
    }
    Variable forward(const Variable& x) override {
        Variable y = (*body)(x);
        return use_extra ? y + (*extra)(x) : y;
    }
};

TEST_CASE("multi_node_optimizer: a parameter without a grad on some ranks neither hangs nor diverges",
          "[distributed][optimizer]") {
    for (const bool overlap : {false, true}) {
        for (const bool zero_fill : {true, false}) {
            if (!overlap && !zero_fill) continue;  // per-array reduction without zero_fill desyncs (as ChainerMN)
            distributed::Communicator& comm = *comm_of("naive");
            auto model = std::make_shared<TwoHeads>();
            fill_params(*model);
            model->use_extra = comm.rank() == 0;
            auto opt = distributed::create_multi_node_optimizer(
                std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.5}), comm_of("naive"),
                {.zero_fill = zero_fill, .overlap = overlap, .bucket_size_bytes = 32});
            opt->setup(model);
            const Batch local = local_batch(comm);
            opt->update([&] { return mse(*model, local); });  // broadcast (and update: the weights agree)

            // Expected: p - lr * mean over ranks of the grad (zeros where there is none).
            auto probe = std::static_pointer_cast<TwoHeads>(model->copy(links::CopyMode::kCopy));
            probe->use_extra = model->use_extra;
            probe->cleargrads();
            mse(*probe, local).backward();
            std::vector<std::vector<double>> expected;
            for (const links::Parameter& p : probe->params()) {
                const Array g = p.grad().defined() ? p.grad() : ops::zeros_like(p.array());
                const Array mean = comm.allreduce(g, distributed::ReduceOp::kMean);
                const bool none_here = !p.grad().defined() && !zero_fill;
                expected.push_back(none_here ? testing::to_doubles(p.array())
                                             : testing::to_doubles(ops::subtract(p.array(), ops::multiply(mean, 0.5))));
            }
            opt->update([&] { return mse(*model, local); });
            INFO("overlap " << overlap << " zero_fill " << zero_fill);
            size_t i = 0;
            for (const links::Parameter& p : model->params()) {
                testing::check_allclose(p.array(), expected[i++], p.shape(), {1e-6, 1e-6});
            }
            CHECK(opt->t == 2);
        }
    }
}

TEST_CASE("multi_node_optimizer: the first step updates when every rank already holds rank 0's weights",
          "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("flat");
    for (const bool same : {true, false}) {
        auto model = std::make_shared<Mlp>();
        fill_params(*model, same ? 0.0 : comm.rank());
        auto reference = std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
        fill_params(*reference);  // rank 0's weights
        auto actual = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.3});
        auto opt = distributed::create_multi_node_optimizer(actual, comm_of("flat"));
        opt->setup(model);
        opt->update([&] { return mse(*model, local_batch(comm)); });
        optimizers::SGD ref_opt({.lr = 0.3});
        ref_opt.setup(reference);
        const bool updates = same || comm.size() == 1;
        if (updates) ref_opt.update([&] { return mse(*reference, whole_batch()); });
        INFO("same weights " << same);
        CHECK(opt->t == (updates ? 1 : 0));
        CHECK(max_param_diff(*model, *reference) < 2e-5);
        CHECK(cross_rank_spread(comm, *model) == 0.0);
    }
}
