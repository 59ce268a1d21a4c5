// MultiNodeChainList: errors, the local queue (a rank sending to itself), and a
// model-parallel MNIST-sized MLP split over ranks 0 and 1 against the same MLP on one
// process. Every rank computes first, checks last.

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "distributed/communicator.h"
#include "distributed/links/multi_node_chain_list.h"
#include "functions/activation.h"
#include "functions/loss.h"
#include "links/connection/linear.h"
#include "optimizers/sgd.h"
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
namespace F = rensa::functions;

const dist::CommunicatorPtr& comm() { return testing::shared_comm("naive"); }

// A link running a function of its input (stage bodies and the identity).
class Lambda : public L::Link {
public:
    explicit Lambda(std::function<Variable(const Variable&)> f) : f_{std::move(f)} {}
    using L::Link::forward;
    Variable forward(const Variable& x) override { return f_(x); }

private:
    std::function<Variable(const Variable&)> f_;
};

// The sum of two inputs (a component receiving from two ranks).
class SumOfTwo : public L::Link {
public:
    using L::Link::forward;
    Variable forward(const std::vector<Variable>& xs) override { return xs.at(0) + xs.at(1); }
};

// Linear + ReLU as one link (stage 0 of the pipeline).
class LinearRelu : public L::Cloneable<LinearRelu, L::Chain> {
public:
    std::shared_ptr<L::Linear> l;
    explicit LinearRelu(const L::Linear& init) {
        register_link("l", &LinearRelu::l, std::make_shared<L::Linear>(784, 32));
        l->copyparams(init);
    }
    using L::Chain::forward;
    Variable forward(const Variable& x) override { return F::relu((*l)(x)); }
};

constexpr int kBatch = 16, kSteps = 3;

Array batch_x(int step) {
    return testing::make_array(testing::sample(Dtype::kFloat32, kBatch * 784, 100 + step), Shape{kBatch, 784},
                               Dtype::kFloat32);
}
Array batch_t(int step) {
    std::vector<double> t(kBatch);
    for (int i = 0; i < kBatch; ++i) t[i] = (i * 7 + step) % 10;
    return testing::make_array(t, Shape{kBatch}, Dtype::kInt32);
}

// kSteps of SGD on the whole MLP in this process; the losses.
std::vector<double> train_reference(const std::shared_ptr<L::Linear>& l1, const std::shared_ptr<L::Linear>& l2) {
    auto ref = std::make_shared<L::Chain>();
    ref->add_link("l1", l1);
    ref->add_link("l2", l2);
    rensa::optimizers::SGD opt{{.lr = 0.01}};
    opt.setup(ref);
    std::vector<double> losses;
    for (int step = 0; step < kSteps; ++step) {
        const Variable x{batch_x(step), false}, t{batch_t(step), false};
        ref->cleargrads();
        const Variable loss = F::softmax_cross_entropy((*l2)(F::relu((*l1)(x))), t);
        loss.backward();
        opt.update();
        losses.push_back(loss.item());
    }
    return losses;
}

}  // namespace

TEST_CASE("distributed/chain_list: bad ranks and two model outputs are rejected", "[distributed][links]") {
    const auto& c = comm();
    dist::MultiNodeChainList list{c};
    auto id = [] { return std::make_shared<Lambda>([](const Variable& x) { return x; }); };
    CHECK_THROWS_AS(list.add_link(id(), {c->size()}, {}), rensa::ValueError);
    CHECK_THROWS_AS(list.add_link(id(), {}, {-1}), rensa::ValueError);
    list.add_link(id(), {}, {});
    CHECK_THROWS_AS(list.add_link(id(), {}, {}), rensa::ValueError);
    CHECK(list.size() == 1);
    CHECK_THROWS_AS(dist::MultiNodeChainList{nullptr}, rensa::ValueError);
}

TEST_CASE("distributed/chain_list: components on one rank pass through the local queue", "[distributed][links]") {
    // Both components on this rank: y = 3 * (2x)^2 through the queue, dy/dx = 24x.
    const auto& c = comm();
    dist::MultiNodeChainList list{c};
    list.add_link(std::make_shared<Lambda>([](const Variable& x) { return x * 2.0; }), {}, {c->rank()});
    list.add_link(std::make_shared<Lambda>([](const Variable& h) { return h * h * 3.0; }), {c->rank()}, {});
    const Array x0 = testing::make_array({1, -2, 0.5}, Shape{3}, Dtype::kFloat64);
    const Variable x{x0};
    const Variable y = list(x);
    rensa::sum(y).backward();
    testing::check_allclose(y.array(), {12, 48, 3}, Shape{3}, {1e-12, 1e-12});
    testing::check_allclose(x.grad(), {24, -48, 12}, Shape{3}, {1e-12, 1e-12});

    dist::MultiNodeChainList dangling{c};
    dangling.add_link(std::make_shared<Lambda>([](const Variable& v) { return v; }), {}, {c->rank()});
    CHECK_THROWS_AS(dangling(x), rensa::ValueError);
}

TEST_CASE("distributed/chain_list: model-parallel MLP equals the single-process MLP", "[distributed][links]") {
    // 784 -> 32 (ReLU) on rank 0, 32 -> 10 on rank 1, softmax cross entropy on rank 0; SGD.
    // Ranks >= 2 only compute the reference.
    const auto& c = comm();
    // Every rank builds the reference from rank 0's initial weights so all agree.
    auto ref1 = std::make_shared<L::Linear>(784, 32);
    auto ref2 = std::make_shared<L::Linear>(32, 10);
    ref1->W.set_array(c->bcast(ref1->W.array(), 0));
    ref2->W.set_array(c->bcast(ref2->W.array(), 0));
    auto stage0 = std::make_shared<LinearRelu>(*ref1);
    auto stage1 = std::make_shared<L::Linear>(32, 10);
    stage1->copyparams(*ref2);

    const std::vector<double> ref_losses = train_reference(ref1, ref2);
    std::vector<double> losses;

    auto list = std::make_shared<dist::MultiNodeChainList>(c);
    if (c->size() >= 2 && c->rank() == 0) {
        list->add_link(stage0, {}, {1});
        list->add_link(std::make_shared<Lambda>([](const Variable& y) { return y; }), {1}, {});
    } else if (c->size() >= 2 && c->rank() == 1) {
        list->add_link(stage1, {0}, {0});
    }
    rensa::optimizers::SGD opt{{.lr = 0.01}};
    opt.setup(list);
    for (int step = 0; step < kSteps && c->size() >= 2 && c->rank() < 2; ++step) {
        list->cleargrads();
        if (c->rank() == 0) {
            const Variable x{batch_x(step), false}, t{batch_t(step), false};
            const Variable loss = F::softmax_cross_entropy((*list)(x), t);
            loss.backward();
            losses.push_back(loss.item());
        } else {
            (*list)().backward();
        }
        opt.update();
    }

    if (c->size() >= 2 && c->rank() == 0) {
        REQUIRE(losses.size() == ref_losses.size());
        for (size_t i = 0; i < losses.size(); ++i) CHECK(losses[i] == Approx(ref_losses[i]).epsilon(1e-5));
        testing::check_allclose(stage0->l->W.array(), ref1->W.array(), {1e-6, 1e-5});
        testing::check_allclose(stage0->l->b.array(), ref1->b.array(), {1e-6, 1e-5});
    } else if (c->size() >= 2 && c->rank() == 1) {
        testing::check_allclose(stage1->W.array(), ref2->W.array(), {1e-6, 1e-5});
        testing::check_allclose(stage1->b.array(), ref2->b.array(), {1e-6, 1e-5});
    }
    for (const double l : ref_losses) CHECK(std::isfinite(l));
}

TEST_CASE("distributed/chain_list: one output sent to two ranks and gathered back", "[distributed][links]") {
    // Size >= 3: rank 0 sends h = 2x to ranks 1 and 2, which return 3h and 5h; rank 0's
    // model output is their sum y = 16x, loss = sum(y*y), d loss / dx = 512x.
    const auto& c = comm();
    const bool active = c->size() >= 3 && c->rank() < 3;
    const Array x0 = testing::make_array({1, -0.5, 2, 0.25}, Shape{2, 2}, Dtype::kFloat64);
    Array y_array, grad;
    if (active && c->rank() == 0) {
        dist::MultiNodeChainList sum_list{c};
        sum_list.add_link(std::make_shared<Lambda>([](const Variable& x) { return x * 2.0; }), {}, {1, 2});
        sum_list.add_link(std::make_shared<SumOfTwo>(), {1, 2}, {});
        const Variable x{x0};
        const Variable y = sum_list(x);
        rensa::sum(y * y).backward();
        y_array = y.array();
        grad = x.grad();
    } else if (active) {
        const double k = c->rank() == 1 ? 3.0 : 5.0;
        dist::MultiNodeChainList worker{c};
        worker.add_link(std::make_shared<Lambda>([k](const Variable& h) { return h * k; }), {0}, {0});
        worker().backward();
    }
    if (active && c->rank() == 0) {
        testing::check_allclose(y_array, rensa::ops::multiply(x0, 16.0));
        testing::check_allclose(grad, rensa::ops::multiply(x0, 512.0));
    }
}
