// mixed_bf16 on cuda:0: the config is device-independent. One Linear step under the mixed
// config on the GPU (a float32 batch cast by the link, a float32 master kept by the optimizer)
// against the same step on the native backend.

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "autograd/modes.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/loss.h"
#include "links/connection/linear.h"
#include "optimizers/sgd.h"
#include "serializers/serializer.h"
#include "tests/cuda/cuda_testing.h"
#include "tests/testing/mixed_bf16.h"

namespace rensa::testing {
namespace {

// One SGD step of a mixed_bf16 Linear(8, 3) on `device`: W and its float32 master (as the
// rule saves it), both on the host.
std::pair<Array, Array> one_step(Device device) {
    MixedBF16Scope scope;
    seed(5);
    auto link = std::make_shared<L::Linear>(8, 3);
    link->to_device(device);
    optimizers::SGD optimizer({.lr = 0.1});
    optimizer.setup(link);
    const Array x = ops::uniform({4, 8}, -1, 1).to_device(device);
    const Array t = ops::uniform({4, 3}, -1, 1).astype(Dtype::kBFloat16).to_device(device);
    F::mean_squared_error(link->forward(Variable(x, false)), Variable(t, false)).backward();
    optimizer.update();
    CHECK(link->W.dtype() == Dtype::kBFloat16);
    auto recorder = std::make_shared<SaveRecorder>();
    link->W.update_rule()->serialize(serializers::Serializer{recorder});
    REQUIRE(recorder->saved.count("fp32_param") == 1);
    const Array master = recorder->saved.at("fp32_param");
    CHECK(master.dtype() == Dtype::kFloat32);
    CHECK(master.device() == device);
    return {link->W.array().to_device(Device::native()), master.to_device(Device::native())};
}

}  // namespace

TEST_CASE("cuda: a mixed_bf16 Linear step matches the native one", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const auto [w_cuda, master_cuda] = one_step(cuda0());
    const auto [w_native, master_native] = one_step(Device::native());
    CHECK(to_doubles(w_cuda) == to_doubles(master_cuda.astype(Dtype::kBFloat16)));
    check_allclose(master_cuda, master_native, {.atol = 1e-3, .rtol = 1e-2});
}

}  // namespace rensa::testing
