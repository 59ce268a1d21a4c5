// pure_nccl and hierarchical at np=1, the only layout one GPU allows: every reduction of a
// single rank returns its input, so results are compared exactly with the input. The
// [cuda] cases are counted as skipped without a GPU; the first case runs everywhere.

#include <catch2/catch.hpp>

#include "distributed/detail/grad_buckets.h"
#include "distributed/detail/nccl_check.h"
#include "links/chain.h"
#include "tests/cuda/cuda_testing.h"
#include "tests/distributed/distributed_testing.h"

namespace rensa::distributed {
namespace {

using rensa::testing::cuda0;
using rensa::testing::random_array;
using rensa::testing::to_cuda;
using rensa::testing::to_doubles;

constexpr const char* kKinds[] = {"pure_nccl", "hierarchical"};
constexpr Dtype kNumericDtypes[] = {Dtype::kInt8,    Dtype::kUInt8,    Dtype::kInt32,   Dtype::kInt64,
                                    Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64};
constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMax, ReduceOp::kMin};

Communicator& comm(const std::string& name) { return *rensa::testing::shared_comm(name); }

// Same device, dtype, shape and exactly the same values.
void check_same(const Array& actual, const Array& expected, Device device) {
    REQUIRE(actual.defined());
    CHECK(actual.device() == device);
    CHECK(actual.dtype() == expected.dtype());
    CHECK(actual.shape() == expected.shape());
    CHECK(to_doubles(actual) == to_doubles(expected));
}

TEST_CASE("nccl communicators: created without a GPU; native arrays go through MPI", "[distributed][nccl]") {
    for (const char* kind : kKinds) {
        INFO(kind);
        Communicator& c = comm(kind);
        CHECK(c.name() == kind);
        REQUIRE(c.size() == 1);
        const Array x = random_array({4, 3}, Dtype::kFloat32, 7);
        for (const ReduceOp op : kOps) check_same(c.allreduce(x, op), x, Device::native());
        check_same(c.bcast(x, 0), x, Device::native());
        const std::vector<Array> all = c.allgather(x);
        REQUIRE(all.size() == 1);
        check_same(all[0], x, Device::native());
        const Array buffer = x.copy();
        c.allreduce_inplace(buffer, ReduceOp::kMean);
        check_same(buffer, x, Device::native());
        const Array buffer2 = x.copy();
        c.iallreduce_inplace(buffer2, ReduceOp::kSum)->wait();
        check_same(buffer2, x, Device::native());
        auto link = std::make_shared<links::Link>();
        link->add_param("W", Shape{3, 2}, Dtype::kFloat32);
        const Array g = random_array({3, 2}, Dtype::kFloat32, 11);
        link->param("W").set_grad(g.copy());
        c.multi_node_mean_grad(*link);
        check_same(link->param("W").grad(), g, Device::native());
        c.barrier();
    }
}

TEST_CASE("nccl communicators: a non-blocking call is polled until it leaves ncclInProgress", "[distributed][nccl]") {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point later = Clock::now() + std::chrono::seconds{30};
    int queries = 0;
    // States the communicator reports, one per query.
    auto reports = [&queries](std::vector<ncclResult_t> states, ncclResult_t read = ncclSuccess) {
        return [&queries, states, read](ncclResult_t* state) {
            *state = states[static_cast<size_t>(std::min<int>(queries, static_cast<int>(states.size()) - 1))];
            ++queries;
            return read;
        };
    };
    SECTION("a finished call is not queried") {
        CHECK(detail::wait_in_progress(ncclSuccess, reports({ncclInProgress}), later) == ncclSuccess);
        CHECK(queries == 0);
        CHECK(detail::wait_in_progress(ncclInternalError, reports({ncclSuccess}), later) == ncclInternalError);
        CHECK(queries == 0);
    }
    SECTION("in progress twice, then done") {
        const auto query = reports({ncclInProgress, ncclInProgress, ncclSuccess});
        CHECK(detail::wait_in_progress(ncclInProgress, query, later) == ncclSuccess);
        CHECK(queries == 3);
    }
    SECTION("an asynchronous error ends the wait with it") {
        CHECK(detail::wait_in_progress(ncclInProgress, reports({ncclInProgress, ncclRemoteError}), later) ==
              ncclRemoteError);
        CHECK(queries == 2);
    }
    SECTION("a failing query ends the wait with its status") {
        CHECK(detail::wait_in_progress(ncclInProgress, reports({ncclInProgress}, ncclInvalidArgument), later) ==
              ncclInvalidArgument);
        CHECK(queries == 1);
    }
    SECTION("past the deadline it stays in progress") {
        const Clock::time_point soon = Clock::now() + std::chrono::milliseconds{20};
        CHECK(detail::wait_in_progress(ncclInProgress, reports({ncclInProgress}), soon) == ncclInProgress);
        CHECK(Clock::now() >= soon);
        CHECK(queries > 0);
    }
}

TEST_CASE("nccl communicators: allreduce of CUDA arrays, every dtype and op", "[cuda][distributed][nccl]") {
    RENSA_REQUIRE_CUDA();
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        REQUIRE(c.size() == 1);
        for (const Dtype dtype : kNumericDtypes) {
            for (const Shape& shape : {Shape{5, 3}, Shape{}, Shape{0}, Shape{70001}}) {
                const Array host = random_array(shape, dtype, 3);
                const Array x = to_cuda(host);
                for (const ReduceOp op : kOps) {
                    INFO(kind << " " << dtype << " " << shape << " " << to_string(op));
                    check_same(c.allreduce(x, op), host, cuda0());
                }
            }
        }
        const Array flags = random_array({9}, Dtype::kBool, 4);
        check_same(c.allreduce(to_cuda(flags), ReduceOp::kMax), flags, cuda0());
        check_same(c.allreduce(to_cuda(flags), ReduceOp::kMin), flags, cuda0());
        CHECK_THROWS_AS(c.allreduce(to_cuda(flags), ReduceOp::kSum), DtypeError);
        // A non-contiguous input (transposed view).
        const Array host = random_array({4, 6}, Dtype::kFloat32, 5);
        check_same(c.allreduce(to_cuda(host).transpose(), ReduceOp::kSum), host.transpose(), cuda0());
    }
}

TEST_CASE("nccl communicators: allreduce_inplace and iallreduce_inplace of CUDA buffers", "[cuda][distributed][nccl]") {
    RENSA_REQUIRE_CUDA();
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64, Dtype::kInt32}) {
            INFO(kind << " " << dtype);
            const Array host = random_array({1003}, dtype, 9);
            const Array buffer = to_cuda(host);
            c.allreduce_inplace(buffer, ReduceOp::kSum);
            check_same(buffer, host, cuda0());
            const Array waited = to_cuda(host);
            c.iallreduce_inplace(waited, ReduceOp::kMean)->wait();
            check_same(waited, host, cuda0());
            const Array tested = to_cuda(host);
            const auto request = c.iallreduce_inplace(tested, ReduceOp::kSum);
            while (!request->test()) {
            }
            check_same(tested, host, cuda0());
        }
        // Several in flight, waited in order.
        std::vector<Array> hosts, buffers;
        std::vector<std::unique_ptr<Request>> requests;
        for (int i = 0; i < 4; ++i) {
            hosts.push_back(random_array({257 + i}, Dtype::kFloat32, 20 + static_cast<uint64_t>(i)));
            buffers.push_back(to_cuda(hosts.back()));
            requests.push_back(c.iallreduce_inplace(buffers.back(), ReduceOp::kSum));
        }
        for (size_t i = 0; i < requests.size(); ++i) {
            requests[i]->wait();
            check_same(buffers[i], hosts[i], cuda0());
        }
        const Array empty = to_cuda(random_array({0}, Dtype::kFloat32, 1));
        c.iallreduce_inplace(empty, ReduceOp::kSum)->wait();
        CHECK(empty.size() == 0);
        const Array strided = to_cuda(random_array({4, 3}, Dtype::kFloat32, 1)).transpose();
        CHECK_THROWS_AS(c.allreduce_inplace(strided, ReduceOp::kSum), ValueError);
        c.barrier();
    }
}

TEST_CASE("nccl communicators: the other array collectives keep CUDA arrays on the GPU", "[cuda][distributed][nccl]") {
    RENSA_REQUIRE_CUDA();
    for (const char* kind : kKinds) {
        INFO(kind);
        Communicator& c = comm(kind);
        for (const Dtype dtype : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kInt64}) {
            const Array host = random_array({3, 5}, dtype, 13);
            const Array x = to_cuda(host);
            check_same(c.bcast(x, 0), host, cuda0());
            const std::vector<Array> gathered = c.gather(x, 0);
            REQUIRE(gathered.size() == 1);
            check_same(gathered[0], host, cuda0());
            const std::vector<Array> all = c.allgather(x);
            REQUIRE(all.size() == 1);
            check_same(all[0], host, cuda0());
            check_same(c.scatter({x}, 0), host, cuda0());
            const std::vector<Array> exchanged = c.alltoall({x});
            REQUIRE(exchanged.size() == 1);
            check_same(exchanged[0], host, cuda0());
        }
        // split: a communicator of the same kind with its own NCCL communicator.
        const CommunicatorPtr part = c.split(0, c.rank());
        CHECK(part->name() == kind);
        const Array host = random_array({33}, Dtype::kFloat32, 14);
        check_same(part->allreduce(to_cuda(host), ReduceOp::kSum), host, cuda0());
    }
}

struct CudaModel {
    std::shared_ptr<links::Chain> root = std::make_shared<links::Chain>();
    std::shared_ptr<links::Link> l1 = std::make_shared<links::Link>();
    // Sorted names: /l1/W, /l1/b, /scale.
    std::vector<links::Parameter> params() { return {l1->param("W"), l1->param("b"), root->param("scale")}; }
};

// A small chain on cuda:0 with random values and grads (grad k from seed 100 + k).
CudaModel make_cuda_model(Dtype dtype, std::vector<Array>* grads) {
    CudaModel m;
    m.l1->add_param("W", Shape{3, 5}, dtype);
    m.l1->add_param("b", Shape{3}, dtype);
    m.root->add_param("scale", Shape{}, dtype);
    m.root->add_link("l1", m.l1);
    m.root->to_device(cuda0());
    uint64_t seed = 50;
    for (const links::Parameter& p : m.params()) {
        p.array().assign(to_cuda(random_array(p.shape(), dtype, seed++)));
        const Array g = random_array(p.shape(), dtype, seed + 50);
        p.set_grad(to_cuda(g));
        if (grads != nullptr) grads->push_back(g);
    }
    return m;
}

TEST_CASE("nccl communicators: multi_node_mean_grad and bcast_data of a model on cuda:0", "[cuda][distributed][nccl]") {
    RENSA_REQUIRE_CUDA();
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        for (const Dtype dtype : rensa::testing::kCudaFloatDtypes) {
            INFO(kind << " " << dtype);
            std::vector<Array> grads;
            CudaModel m = make_cuda_model(dtype, &grads);
            c.multi_node_mean_grad(*m.root);
            const std::vector<links::Parameter> params = m.params();
            for (size_t k = 0; k < params.size(); ++k) check_same(params[k].grad(), grads[k], cuda0());
            // Twice: the kept buffers are reused.
            c.multi_node_mean_grad(*m.root);
            for (size_t k = 0; k < params.size(); ++k) check_same(params[k].grad(), grads[k], cuda0());
            std::vector<Array> values;
            for (const links::Parameter& p : params) values.push_back(p.array().to_device(Device::native()));
            c.bcast_data(*m.root);
            for (size_t k = 0; k < params.size(); ++k) check_same(params[k].array(), values[k], cuda0());
        }
        // zero_fill: a parameter without a grad gets zeros on the GPU.
        CudaModel m = make_cuda_model(Dtype::kFloat32, nullptr);
        m.root->param("scale").cleargrad();
        c.multi_node_mean_grad(*m.root, /*zero_fill=*/true);
        const Array zero = m.root->param("scale").grad();
        REQUIRE(zero.defined());
        CHECK(zero.device() == cuda0());
        CHECK(to_doubles(zero) == std::vector<double>{0.0});
    }
}

TEST_CASE("nccl communicators: allreduce_grad_dtype packs in that dtype and unpacks in the grad's",
          "[cuda][distributed][nccl]") {
    RENSA_REQUIRE_CUDA();
    struct Case {
        Dtype grad, reduce;
    };
    for (const char* kind : kKinds) {
        for (const Case& k : {Case{Dtype::kFloat32, Dtype::kFloat16}, Case{Dtype::kFloat32, Dtype::kBFloat16},
                              Case{Dtype::kFloat16, Dtype::kFloat32}, Case{Dtype::kBFloat16, Dtype::kFloat32}}) {
            INFO(kind << " grads " << k.grad << " reduced in " << k.reduce);
            const CommunicatorPtr c = create_communicator(kind, {.allreduce_grad_dtype = k.reduce});
            std::vector<Array> grads;
            CudaModel m = make_cuda_model(k.grad, &grads);
            c->multi_node_mean_grad(*m.root);
            const std::vector<links::Parameter> params = m.params();
            for (size_t i = 0; i < params.size(); ++i) {
                // The value after the round trip through the reduction dtype.
                const Array expected = grads[i].astype(k.reduce).astype(k.grad);
                check_same(params[i].grad(), expected, cuda0());
            }
        }
    }
}

TEST_CASE("nccl communicators: gradient buckets live on the GPU and are reduced there", "[cuda][distributed][nccl]") {
    RENSA_REQUIRE_CUDA();
    for (const char* kind : kKinds) {
        INFO(kind);
        Communicator& c = comm(kind);
        std::vector<Array> grads;
        CudaModel m = make_cuda_model(Dtype::kFloat32, &grads);
        // 8-byte buckets in name order: {/l1/W}, then {/l1/b, /scale} or so.
        const detail::NamedParams named = detail::sorted_params(*m.root, /*updating_only=*/true);
        detail::GradBuckets buckets(named, c, 8);
        REQUIRE(buckets.bucket_count() >= 2);
        buckets.reset();
        buckets.start_all();
        buckets.progress();
        buckets.finish(/*zero_fill=*/true);
        const std::vector<links::Parameter> params = m.params();
        for (size_t k = 0; k < params.size(); ++k) {
            check_same(params[k].grad(), grads[k], cuda0());
            CHECK(params[k].grad().device() == cuda0());
        }
        // The grads are the bucket slots on the GPU: the next backward writes there.
        buckets.install_destinations();
        for (const auto& [name, p] : named) CHECK(p.grad_destination().device() == cuda0());
    }
}

}  // namespace
}  // namespace rensa::distributed
