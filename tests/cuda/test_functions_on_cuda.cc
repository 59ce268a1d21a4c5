// A compact sweep of representative functions on cuda:0 against the native backend:
// forward and backward of each, from the same random inputs and the same output grads.
// (RENSA_TEST_ON_CUDA builds also run the whole function harness on cuda:0; this file
// covers the default build.)

#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "autograd/shape_ops.h"
#include "autograd/variable.h"
#include "core/random.h"
#include "cuda/handles.h"
#include "functions/functions.h"
#include "tests/cuda/cuda_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using VarFn = std::function<Variable(const std::vector<Variable>&)>;

struct Result {
    Array y;
    std::vector<Array> grads;  // one per float input (undefined for the others)
};

// fn on `inputs` moved to `device`; backward from `gy` (native, moved too). Float inputs
// are differentiated. The global seed is reset first so random functions draw alike.
Result run_on(Device device, const VarFn& fn, const std::vector<Array>& inputs, const Array& gy) {
    const DeviceScope scope{device};
    seed(1234);
    std::vector<Variable> xs;
    for (const Array& x : inputs) xs.emplace_back(x.to_device(device), is_float(x.dtype()));
    const Variable y = fn(xs);
    y.set_grad(gy.to_device(device));
    y.backward();
    Result r{y.array(), {}};
    for (const Variable& x : xs) r.grads.push_back(is_float(x.dtype()) ? x.grad() : Array{});
    return r;
}

Tolerance tol_for(Dtype dtype) { return dtype == Dtype::kFloat32 ? Tolerance{1e-4, 1e-4} : Tolerance{3e-2, 3e-2}; }

// Runs fn on native and on cuda:0 and compares the output and every input grad.
void check_on_cuda(const char* name, const VarFn& fn, const std::vector<Array>& inputs, uint64_t seed_gy = 99) {
    INFO(name << " [" << dtype_name(inputs.front().dtype()) << "]");
    Shape y_shape;
    Dtype y_dtype{};
    {
        // The output's shape and dtype, to make gy (a forward pass on the host).
        const DeviceScope host{Device::native()};
        seed(1234);
        std::vector<Variable> xs;
        for (const Array& x : inputs) xs.emplace_back(x, false);
        const Variable y = fn(xs);
        y_shape = y.shape();
        y_dtype = y.dtype();
    }
    const Array gy = random_array(y_shape, y_dtype, seed_gy);
    const Result expected = run_on(Device::native(), fn, inputs, gy);
    const Result actual = run_on(cuda0(), fn, inputs, gy);
    CHECK(actual.y.device() == cuda0());
    const Tolerance tol = tol_for(y_dtype);
    check_allclose(actual.y, expected.y, tol);
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!is_float(inputs[i].dtype())) continue;
        INFO("grad of input " << i);
        REQUIRE(actual.grads[i].defined() == expected.grads[i].defined());
        if (expected.grads[i].defined()) check_allclose(actual.grads[i], expected.grads[i], tol_for(inputs[i].dtype()));
    }
}

constexpr Dtype kHalfAndSingle[] = {Dtype::kFloat16, Dtype::kFloat32};

}  // namespace

TEST_CASE("cuda: activations match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kHalfAndSingle) {
        const Array x = random_array({7, 33}, dtype, 1);
        check_on_cuda("relu", [](const auto& xs) { return F::relu(xs[0]); }, {x});
        check_on_cuda("sigmoid", [](const auto& xs) { return F::sigmoid(xs[0]); }, {x});
        check_on_cuda("tanh", [](const auto& xs) { return F::tanh(xs[0]); }, {x});
    }
}

TEST_CASE("cuda: linear and matmul match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cuda::set_allow_tf32(false);
    for (const Dtype dtype : kHalfAndSingle) {
        const Array x = random_array({5, 17}, dtype, 2, -1, 1);
        const Array w = random_array({9, 17}, dtype, 3, -1, 1);
        const Array b = random_array({9}, dtype, 4, -1, 1);
        check_on_cuda("linear", [](const auto& xs) { return F::linear(xs[0], xs[1], xs[2]); }, {x, w, b});
        const Array a = random_array({6, 13}, dtype, 5, -1, 1);
        const Array m = random_array({6, 11}, dtype, 6, -1, 1);
        check_on_cuda("matmul^T", [](const auto& xs) { return F::matmul(xs[0], xs[1], true, false); }, {a, m});
    }
}

TEST_CASE("cuda: convolution and pooling match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cuda::set_allow_tf32(false);
    for (const Dtype dtype : kHalfAndSingle) {
        const Array x = random_array({2, 3, 9, 11}, dtype, 7, -1, 1);
        const Array w = random_array({4, 3, 3, 3}, dtype, 8, -1, 1);
        const Array b = random_array({4}, dtype, 9, -1, 1);
        check_on_cuda("convolution_2d",
                      [](const auto& xs) { return F::convolution_2d(xs[0], xs[1], xs[2], {.stride = 2, .pad = 1}); },
                      {x, w, b});
        check_on_cuda("average_pooling_2d",
                      [](const auto& xs) { return F::average_pooling_2d(xs[0], 3, {.stride = 2}); }, {x});
    }
    // float32 only: float16 values tie inside a window often enough to route grads differently.
    const Array x = random_array({2, 3, 9, 11}, Dtype::kFloat32, 10);
    check_on_cuda("max_pooling_2d", [](const auto& xs) { return F::max_pooling_2d(xs[0], 2); }, {x});
    check_on_cuda("max_pooling_2d pad",
                  [](const auto& xs) { return F::max_pooling_2d(xs[0], 3, {.stride = 2, .pad = 1}); }, {x});
}

TEST_CASE("cuda: batch_normalization matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Array x = random_array({6, 5, 4, 3}, Dtype::kFloat32, 11);
    const Array gamma = random_array({5}, Dtype::kFloat32, 12, 0.5, 1.5);
    const Array beta = random_array({5}, Dtype::kFloat32, 13);
    check_on_cuda("batch_normalization", [](const auto& xs) { return F::batch_normalization(xs[0], xs[1], xs[2]); },
                  {x, gamma, beta});
}

TEST_CASE("cuda: softmax_cross_entropy and embed_id match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Array x = random_array({13, 7}, Dtype::kFloat32, 14);
    const Array t = random_array({13}, Dtype::kInt32, 15, 0, 7);
    check_on_cuda("softmax_cross_entropy", [](const auto& xs) { return F::softmax_cross_entropy(xs[0], xs[1]); },
                  {x, t});
    const Array ids = random_array({4, 5}, Dtype::kInt32, 16, 0, 10);
    const Array w = random_array({10, 6}, Dtype::kFloat32, 17);
    // embed_id takes the ids first; list W first so the float input names the dtype.
    check_on_cuda("embed_id", [](const auto& xs) { return F::embed_id(xs[1], xs[0]); }, {w, ids});
}

TEST_CASE("cuda: dropout with a fixed seed matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    // The same seed gives the same Philox stream on both devices, hence the same mask.
    const Array x = random_array({8, 129}, Dtype::kFloat32, 18);
    check_on_cuda("dropout", [](const auto& xs) { return F::dropout(xs[0], 0.3); }, {x});
}

TEST_CASE("cuda: concat, sum and lstm match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kHalfAndSingle) {
        const Array a = random_array({3, 4, 5}, dtype, 19);
        const Array b = random_array({3, 2, 5}, dtype, 20);
        check_on_cuda("concat", [](const auto& xs) { return F::concat({xs[0], xs[1]}, 1); }, {a, b});
        check_on_cuda("sum axis 1", [](const auto& xs) { return F::sum(xs[0], 1); }, {a});
    }
    const Array big = random_array({70000}, Dtype::kFloat32, 21, -1, 1);
    check_on_cuda("sum all", [](const auto& xs) { return rensa::sum(xs[0]); }, {big});
    const Array c = random_array({4, 6}, Dtype::kFloat32, 22);
    const Array x = random_array({4, 24}, Dtype::kFloat32, 23);
    check_on_cuda("lstm",
                  [](const auto& xs) {
                      const auto [c_next, h] = F::lstm(xs[0], xs[1]);
                      return F::concat({c_next, h}, 1);
                  },
                  {c, x});
}
