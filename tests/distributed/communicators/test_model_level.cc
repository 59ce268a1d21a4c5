// bcast_data and multi_node_mean_grad of the naive, flat and dummy communicators.

#include <catch2/catch.hpp>

#include "links/chain.h"
#include "tests/distributed/communicators/comm_testing.h"

namespace rensa::distributed {
namespace {

using testing::comm;
using testing::mismatch;
using testing::values_of;

constexpr const char* kKinds[] = {"naive", "flat", "dummy"};

// Values of array `k` (in sorted name order) on rank r.
std::vector<double> data_of(int k, int r, int64_t n) {
    std::vector<double> v = values_of(Dtype::kFloat64, r, n);
    for (double& x : v) x += 10.0 * k;
    return v;
}

struct Model {
    std::shared_ptr<links::Chain> root = std::make_shared<links::Chain>();
    std::shared_ptr<links::Link> l1 = std::make_shared<links::Link>();
    // Sorted names: /l1/W, /l1/avg (persistent), /l1/b, /scale.
    std::vector<Array> arrays() { return {W().array(), l1->persistent_array("avg"), b().array(), scale().array()}; }
    const links::Parameter& W() { return l1->param("W"); }
    const links::Parameter& b() { return l1->param("b"); }
    const links::Parameter& scale() { return root->param("scale"); }
};

// A model whose arrays hold rank r's values; `w_cols` and `extra` make ranks disagree.
Model make_model(int r, Dtype dtype = Dtype::kFloat32, int64_t w_cols = 4, bool extra = false) {
    Model m;
    m.l1->add_param("W", Shape{3, w_cols}, dtype);
    m.l1->add_param("b", Shape{3}, dtype);
    m.l1->add_persistent("avg", Array::empty({2}, dtype));
    if (extra) m.l1->add_param("extra", Shape{1}, dtype);
    m.root->add_param("scale", Shape{2}, dtype);
    m.root->add_link("l1", m.l1);
    const std::vector<Array> arrays = m.arrays();
    for (size_t k = 0; k < arrays.size(); ++k) {
        arrays[k].assign(
            rensa::testing::make_array(data_of(static_cast<int>(k), r, arrays[k].size()), arrays[k].shape(), dtype));
    }
    return m;
}

TEST_CASE("communicator bcast_data: parameters and persistents equal those of rank 0", "[distributed][communicators]") {
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        Model m = make_model(c.rank());
        c.bcast_data(*m.root);
        const std::vector<Array> arrays = m.arrays();
        for (size_t k = 0; k < arrays.size(); ++k) {
            INFO(kind << " array " << k);
            CHECK(mismatch(arrays[k], data_of(static_cast<int>(k), 0, arrays[k].size()), arrays[k].shape()) == "");
        }
    }
}

// The message every rank got from bcast_data ("" when none raised).
std::string bcast_data_error(Communicator& c, Model& m) {
    try {
        c.bcast_data(*m.root);
    } catch (const MpiError& e) {
        return e.what();
    }
    return {};
}

TEST_CASE("communicator bcast_data: a shape mismatch raises on every rank", "[distributed][communicators]") {
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        const int odd = c.size() - 1;  // the last rank has a wider W
        Model m = make_model(c.rank(), Dtype::kFloat32, c.rank() == odd && odd > 0 ? 5 : 4);
        const std::string message = bcast_data_error(c, m);
        INFO(kind << ": " << message);
        if (c.size() == 1) {
            CHECK(message.empty());
        } else {
            CHECK_THAT(message, Catch::Contains("bcast_data") && Catch::Contains("rank " + std::to_string(odd)) &&
                                    Catch::Contains("/l1/W (3, 5)") && Catch::Contains("/l1/W (3, 4)"));
            // Nothing was broadcast: W keeps this rank's values.
            CHECK(mismatch(m.b().array(), data_of(2, c.rank(), 3), {3}) == "");
        }
    }
}

TEST_CASE("communicator bcast_data: a missing parameter raises on every rank", "[distributed][communicators]") {
    Communicator& c = comm("flat");
    Model m = make_model(c.rank(), Dtype::kFloat32, 4, c.rank() == 1);
    const std::string message = bcast_data_error(c, m);
    INFO(message);
    if (c.size() == 1) {
        CHECK(message.empty());
    } else {
        CHECK_THAT(message, Catch::Contains("rank 1") && Catch::Contains("/l1/extra"));
    }
}

TEST_CASE("communicator bcast_data: a read-only parameter on a receiving rank raises on every rank",
          "[distributed][communicators][read_only]") {
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        const int last = c.size() - 1;
        Model m = make_model(c.rank());
        // The last rank's W over read-only memory holding its own values (Note [Read-only memory]).
        std::vector<float> memory = m.W().array().to_vector<float>();
        if (c.rank() == last && last > 0) {
            m.W().set_array(Array(std::make_shared<Storage>(memory.data(), static_cast<int64_t>(memory.size() * 4),
                                                            Device::native(), nullptr, true),
                                  Shape{3, 4}, Strides{16, 4}, 0, Dtype::kFloat32));
        }
        const std::string message = bcast_data_error(c, m);
        INFO(kind << ": " << message);
        if (c.size() == 1) {
            CHECK(message.empty());  // rank 0 writes nothing
        } else {
            CHECK_THAT(message, Catch::Contains("bcast_data: rank " + std::to_string(last) + ": '/l1/W'") &&
                                    Catch::Contains("read-only"));
            CHECK(mismatch(m.b().array(), data_of(2, c.rank(), 3), {3}) == "");  // nothing was broadcast
            if (c.rank() == last) CHECK(memory == m.W().array().to_vector<float>());
        }
    }
}

TEST_CASE("communicator allreduce_inplace: a read-only buffer raises ValueError",
          "[distributed][communicators][read_only]") {
    for (const char* kind : kKinds) {
        Communicator& c = comm(kind);
        std::vector<float> memory(4, 1.0F);
        const Array buffer(std::make_shared<Storage>(memory.data(), 16, Device::native(), nullptr, true), Shape{4},
                           Strides{4}, 0, Dtype::kFloat32);
        CHECK_THROWS_WITH(c.allreduce_inplace(buffer),
                          Catch::Contains("allreduce_inplace: assignment destination is read-only"));
        CHECK_THROWS_WITH(c.iallreduce_inplace(buffer),
                          Catch::Contains("iallreduce_inplace: assignment destination is read-only"));
        CHECK(memory == std::vector<float>(4, 1.0F));
        c.barrier();  // the ranks are still in step
    }
}

// Sets grad k of the model (sorted params W, b, scale) to data_of(k, r).
void set_grads(Model& m, int r, Dtype dtype, bool with_b = true) {
    const std::vector<links::Parameter> params{m.W(), m.b(), m.scale()};
    for (size_t k = 0; k < params.size(); ++k) {
        if (k == 1 && !with_b) continue;
        params[k].set_grad(
            rensa::testing::make_array(data_of(static_cast<int>(k), r, params[k].size()), params[k].shape(), dtype));
    }
}

std::vector<double> mean_reference(int k, int size, int64_t n, bool only_rank0 = false) {
    std::vector<double> mean(static_cast<size_t>(n), 0.0);
    for (int r = 0; r < (only_rank0 ? 1 : size); ++r) {
        const std::vector<double> v = data_of(k, r, n);
        for (int64_t i = 0; i < n; ++i) mean[i] += v[i] / size;
    }
    return mean;
}

TEST_CASE("communicator multi_node_mean_grad: naive and flat average and dummy leaves grads",
          "[distributed][communicators]") {
    for (const char* kind : kKinds) {
        for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64}) {
            Communicator& c = comm(kind);
            Model m = make_model(c.rank(), dtype);
            set_grads(m, c.rank(), dtype);
            c.multi_node_mean_grad(*m.root);
            const bool dummy = std::string(kind) == "dummy";
            const std::vector<links::Parameter> params{m.W(), m.b(), m.scale()};
            for (size_t k = 0; k < params.size(); ++k) {
                INFO(kind << " " << dtype << " param " << k);
                const int ki = static_cast<int>(k);
                const auto expected =
                    dummy ? data_of(ki, c.rank(), params[k].size()) : mean_reference(ki, c.size(), params[k].size());
                CHECK(params[k].grad().dtype() == dtype);
                CHECK(mismatch(params[k].grad(), expected, params[k].shape()) == "");
            }
        }
    }
}

// 12 MB of W: on the network path (no shared memory) the ring cuts each rank's chunk of the
// bucket into several pieces of uneven size (Note [Shared-memory buckets]).
TEST_CASE("communicator multi_node_mean_grad: a bucket of several ring pieces", "[distributed][communicators]") {
    for (const char* kind : {"naive", "flat"}) {
        Communicator& c = comm(kind);
        const int64_t cols = 1000003;
        Model m = make_model(c.rank(), Dtype::kFloat32, cols);
        set_grads(m, c.rank(), Dtype::kFloat32);
        c.multi_node_mean_grad(*m.root);
        INFO(kind);
        CHECK(mismatch(m.W().grad(), mean_reference(0, c.size(), 3 * cols), {3, cols}) == "");
        CHECK(mismatch(m.scale().grad(), mean_reference(2, c.size(), 2), {2}) == "");
    }
}

TEST_CASE("communicator multi_node_mean_grad: zero_fill and skipped grads", "[distributed][communicators]") {
    for (const char* kind : {"naive", "flat"}) {
        Communicator& c = comm(kind);
        // b has a grad on rank 0 only: zero_fill makes every rank reduce it.
        Model m = make_model(c.rank());
        set_grads(m, c.rank(), Dtype::kFloat32, c.rank() == 0);
        c.multi_node_mean_grad(*m.root, true);
        INFO(kind);
        CHECK(mismatch(m.b().grad(), mean_reference(1, c.size(), 3, true), {3}) == "");
        CHECK(mismatch(m.W().grad(), mean_reference(0, c.size(), 12), {3, 4}) == "");
        // No rank has a grad for b: skipped without zero_fill (stays None).
        Model n = make_model(c.rank());
        set_grads(n, c.rank(), Dtype::kFloat32, false);
        c.allreduce_grad(*n.root);
        CHECK_FALSE(n.b().grad().defined());
        CHECK(mismatch(n.scale().grad(), mean_reference(2, c.size(), 2), {2}) == "");
    }
}

TEST_CASE("communicator multi_node_mean_grad: float16 grads reduced in float32", "[distributed][communicators]") {
    for (const char* kind : {"naive", "flat"}) {
        // One communicator per kind with allreduce_grad_dtype float32, made once per process.
        static std::map<std::string, CommunicatorPtr> comms;
        auto& slot = comms[kind];
        if (!slot) slot = create_communicator(kind, {.allreduce_grad_dtype = Dtype::kFloat32});
        Communicator& c = *slot;
        Model m = make_model(c.rank(), Dtype::kFloat16);
        // 40000 + 32 r: the float16 sum over 2 or 3 ranks overflows (max 65504), the float32 one does not.
        const Array big = Array::from_vector<float>(std::vector<float>(12, 40000.0F + 32.0F * c.rank()), {3, 4})
                              .astype(Dtype::kFloat16);
        m.W().set_grad(big);
        m.b().set_grad(rensa::testing::make_array(data_of(1, c.rank(), 3), {3}, Dtype::kFloat16));
        m.scale().set_grad(rensa::testing::make_array(data_of(2, c.rank(), 2), {2}, Dtype::kFloat16));
        c.multi_node_mean_grad(*m.root);
        INFO(kind);
        CHECK(m.W().grad().dtype() == Dtype::kFloat16);
        CHECK(mismatch(m.W().grad(), std::vector<double>(12, 40000.0 + 16.0 * (c.size() - 1)), {3, 4}) == "");
        CHECK(mismatch(m.b().grad(), mean_reference(1, c.size(), 3), {3}) == "");
        CHECK(mismatch(m.scale().grad(), mean_reference(2, c.size(), 2), {2}) == "");
    }
}

}  // namespace
}  // namespace rensa::distributed
