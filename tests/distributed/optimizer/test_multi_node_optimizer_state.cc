// The multi-node optimizer's double buffering (one step of staleness) and what it forwards
// to or mirrors from the actual optimizer: hyperparameters (LR shifts), t, epoch, hooks,
// loss scaling and serialize (the actual optimizer's keys).

#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "distributed/multi_node_optimizer.h"
#include "optimizers/hooks.h"
#include "optimizers/momentum_sgd.h"
#include "optimizers/sgd.h"
#include "serializers/npz.h"
#include "tests/distributed/optimizer/optimizer_testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/extensions/lr_shifts.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

using namespace rensa;
using namespace rensa::test_mnopt;

namespace {

// A copy of every parameter's grad (undefined where there is none).
std::vector<Array> copy_grads(const links::Link& model) {
    std::vector<Array> grads;
    for (const links::Parameter& p : model.params()) grads.push_back(p.grad().defined() ? p.grad().copy() : Array{});
    return grads;
}

void set_grads(const links::Link& model, const std::vector<Array>& grads) {
    size_t i = 0;
    for (const links::Parameter& p : model.params()) p.set_grad(grads[i++]);
}

// A folder for the whole job (rank 0 names it, the others learn the name); created here.
std::string job_folder(distributed::Communicator& comm, const std::string& what) {
    const std::string name =
        (std::filesystem::temp_directory_path() / ("rensa_mnopt_" + what + "_" + std::to_string(::getpid()))).string();
    std::string dir = comm.bcast_obj(name, 0);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

TEST_CASE("multi_node_optimizer: double buffering equals a single-process run delayed by one step",
          "[distributed][optimizer]") {
    for (const char* name : {"naive", "flat"}) {
        distributed::Communicator& comm = *comm_of(name);
        auto model = std::make_shared<Mlp>();
        fill_params(*model, comm.rank());
        auto actual = std::make_shared<optimizers::MomentumSGD>(optimizers::MomentumSGDOptions{.lr = 0.1});
        auto opt = distributed::create_multi_node_optimizer(actual, comm_of(name),
                                                            {.double_buffering = true, .bucket_size_bytes = 100});
        opt->setup(model);
        const Batch local = local_batch(comm);
        opt->update([&] { return mse(*model, local); });  // broadcast
        // One rank: nothing to broadcast, so that step's grads are valid and in flight.
        const bool agreed = comm.size() == 1;

        // Reference: the grads of step k (on the current parameters) update at step k + 1.
        auto reference = std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
        optimizers::MomentumSGD ref_opt({.lr = 0.1});
        ref_opt.setup(reference);
        std::vector<Array> previous;
        if (agreed) {
            reference->cleargrads();
            mse(*reference, whole_batch()).backward();
            previous = copy_grads(*reference);
        }
        std::vector<int64_t> ts;
        for (int i = 0; i < 5; ++i) {
            opt->update([&] { return mse(*model, local); });
            ts.push_back(opt->t);
            reference->cleargrads();
            mse(*reference, whole_batch()).backward();
            std::vector<Array> current = copy_grads(*reference);
            if (!previous.empty()) {
                set_grads(*reference, previous);
                ref_opt.update();
            }
            previous = std::move(current);
        }
        INFO(name);
        // The first step after the broadcast only starts communicating.
        CHECK(ts == (agreed ? std::vector<int64_t>{1, 2, 3, 4, 5} : std::vector<int64_t>{0, 1, 2, 3, 4}));
        CHECK(max_param_diff(*model, *reference) < 2e-5);
        CHECK(cross_rank_spread(comm, *model) == 0.0);
    }
}

TEST_CASE("multi_node_optimizer: LR shifts, t, epoch, hooks and loss scaling reach the actual optimizer",
          "[distributed][optimizer]") {
    auto model = std::make_shared<Mlp>();
    fill_params(*model);
    auto actual = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.01});
    auto opt = distributed::create_multi_node_optimizer(actual, comm_of("flat"));
    opt->setup(model);
    CHECK(&opt->target() == model.get());
    CHECK(&actual->target() == model.get());

    opt->hyperparam().set("lr", 0.25);  // what ExponentialShift & co. do
    CHECK(actual->lr() == 0.25);
    CHECK(model->l1->W.update_rule() != nullptr);
    const auto* rule = dynamic_cast<optimizers::UpdateRule*>(model->l1->W.update_rule());
    REQUIRE(rule != nullptr);
    CHECK(rule->hyperparam().get("lr") == 0.25);

    opt->new_epoch();
    CHECK(actual->epoch == 1);
    CHECK(opt->epoch == 1);
    opt->t = 7;  // assigned on the decorator: pushed into the actual optimizer at the next call
    opt->new_epoch();
    CHECK(actual->t == 7);
    CHECK(opt->epoch == 2);

    opt->add_hook(std::make_shared<optimizer_hooks::WeightDecay>(1e-3));
    CHECK_NOTHROW(actual->remove_hook("WeightDecay"));
    CHECK_THROWS_AS(opt->remove_hook("WeightDecay"), KeyError);

    opt->loss_scaling(1000, 8.0);
    CHECK(actual->loss_scale() == 8.0);
    CHECK(opt->loss_scale() == 8.0);

    // A step with the static loss scale: the rule divides it out, so results match lr 0.25.
    // The weights agree on every rank, so the broadcast step updates too (Note [Multi-node
    // update]).
    const Batch local = local_batch(*comm_of("flat"));
    auto reference = std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
    optimizers::SGD ref_opt({.lr = 0.25});
    ref_opt.setup(reference);
    for (int i = 0; i < 2; ++i) {
        opt->update([&] { return mse(*model, local); });
        ref_opt.update([&] { return mse(*reference, whole_batch()); });
    }
    CHECK(max_param_diff(*model, *reference) < 2e-5);
    CHECK(opt->t == 9);
    CHECK(actual->t == 9);

    CHECK_THROWS_AS(distributed::create_multi_node_optimizer(nullptr, comm_of("flat")), ValueError);
    CHECK_THROWS_AS(distributed::create_multi_node_optimizer(actual, nullptr), ValueError);
    CHECK_THROWS_AS(distributed::create_multi_node_optimizer(actual, comm_of("flat"), {.bucket_size_bytes = 0}),
                    ValueError);
}

TEST_CASE("multi_node_optimizer: serialize round trip uses the actual optimizer's keys", "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("flat");
    const std::string dir = job_folder(comm, "serialize");  // one file per rank in it
    const std::string path = dir + "/rank" + std::to_string(comm.rank()) + ".npz";

    auto model = std::make_shared<Mlp>();
    fill_params(*model);
    auto opt = distributed::create_multi_node_optimizer(std::make_shared<optimizers::MomentumSGD>(), comm_of("flat"));
    opt->setup(model);
    const Batch local = local_batch(comm);
    for (int i = 0; i < 3; ++i) opt->update([&] { return mse(*model, local); });
    opt->new_epoch();
    serializers::save_npz(path, *opt);

    // Loaded into a plain MomentumSGD (same keys) and into a fresh decorator.
    auto plain_model = std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
    optimizers::MomentumSGD plain;
    plain.setup(plain_model);
    serializers::load_npz(path, plain);
    auto actual2 = std::make_shared<optimizers::MomentumSGD>();
    auto opt2 = distributed::create_multi_node_optimizer(actual2, comm_of("flat"));
    opt2->setup(std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy)));
    serializers::load_npz(path, *opt2);

    comm.barrier();
    if (comm.rank() == 0) std::filesystem::remove_all(dir);
    CHECK(plain.t == 3);  // the weights agreed: no step skipped
    CHECK(plain.epoch == 1);
    CHECK(opt2->t == 3);
    CHECK(opt2->epoch == 1);
    CHECK(actual2->t == 3);
    const auto* saved = dynamic_cast<optimizers::UpdateRule*>(model->l2->W.update_rule());
    const auto* loaded = dynamic_cast<optimizers::UpdateRule*>(plain_model->l2->W.update_rule());
    REQUIRE(saved != nullptr);
    REQUIRE(loaded != nullptr);
    REQUIRE(loaded->state.count("v") == 1);
    testing::check_allclose(loaded->state.at("v"), saved->state.at("v"), {0, 0});
}

TEST_CASE("multi_node_optimizer: a Trainer with an LR shift drives the decorator like the actual optimizer",
          "[distributed][optimizer]") {
    distributed::Communicator& comm = *comm_of("flat");
    const std::string dir = job_folder(comm, "trainer");
    auto model = std::make_shared<Mlp>();
    fill_params(*model);  // the same on every rank: the broadcast step changes nothing and updates
    auto reference = std::static_pointer_cast<Mlp>(model->copy(links::CopyMode::kCopy));
    auto actual = std::make_shared<optimizers::SGD>(optimizers::SGDOptions{.lr = 0.1});
    auto opt = distributed::create_multi_node_optimizer(actual, comm_of("flat"));
    opt->setup(model);
    const Batch local = local_batch(comm);
    auto dataset =
        std::make_shared<training::datasets::TupleDataset>(std::vector<Array>{local.x.array(), local.t.array()});
    auto iterator = std::make_shared<training::iterators::SerialIterator>(
        dataset, local.x.shape()[0], training::iterators::SerialIteratorOptions{.shuffle = false});
    auto updater = std::make_shared<training::updaters::StandardUpdater>(
        iterator, opt, training::updaters::StandardUpdaterOptions{.loss_func = [&](const std::vector<Variable>& in) {
            return mse(*model, {in[0], in[1]});
        }});
    {
        training::Trainer trainer(updater, {5, "iteration"}, dir + "/result");
        trainer.extend(std::make_shared<training::extensions::ExponentialShift>("lr", 0.5));
        trainer.run();
    }
    // Reference: iteration k updates with lr = 0.1 * 0.5^(k-1).
    optimizers::SGD ref_opt({.lr = 0.1});
    ref_opt.setup(reference);
    for (int k = 1; k <= 5; ++k) {
        ref_opt.hyperparam().set("lr", 0.1 * std::pow(0.5, k - 1));
        ref_opt.update([&] { return mse(*reference, whole_batch()); });
    }
    comm.barrier();
    if (comm.rank() == 0) std::filesystem::remove_all(dir);
    CHECK(actual->lr() == Approx(0.1 * std::pow(0.5, 5)));
    CHECK(opt->t == 5);
    CHECK(actual->t == 5);
    CHECK(opt->epoch == 5);  // one iteration per epoch: new_epoch reached the actual optimizer
    CHECK(actual->epoch == 5);
    CHECK(max_param_diff(*model, *reference) < 2e-5);
    CHECK(cross_rank_spread(comm, *model) == 0.0);
}
