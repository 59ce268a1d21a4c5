// cast and copy: forward, gradients (cast back / copied back), errors.

#include <catch2/catch.hpp>

#include "core/backend.h"
#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("cast", "[functions][array]") {
    // The input dtype is fixed per case (the harness's dtype sweep is a single dummy pass).
    for (const Dtype from : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const Dtype to : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
            const bool half = from == Dtype::kFloat16 || to == Dtype::kFloat16;
            const Tolerance tol = half ? Tolerance{1e-2, 1e-2} : Tolerance{1e-5, 1e-5};
            check_function({
                .name = "cast",
                .inputs = {{.shape = {2, 3}, .dtype = from}},
                .func = [to](const Vars& xs) { return Vars{F::cast(xs[0], to)}; },
                .reference = [](const Arrays& xs) { return Arrays{xs[0]}; },
                .dtypes = {Dtype::kFloat64},
                .forward_tol = {.float64 = tol},
                .backward_tol = {.float64 = tol},
                .double_backward_tol = {.float64 = tol},
                .eps = 0.25,  // linear: a large step keeps float16 rounding small
            });
        }
    }
    const Variable x(ops::zeros({2}));
    CHECK(F::cast(x, Dtype::kFloat32) == x);  // no-op returns x itself
    const Variable i(Array::from_vector<int32_t>({1, -2}, {2}), false);
    CHECK(F::cast(i, Dtype::kFloat32).array().to_vector<float>() == std::vector<float>{1, -2});
    CHECK(F::cast(Variable(Array::from_vector<float>({1.7f}, {1})), Dtype::kInt32).array().item<int>() == 1);
}

TEST_CASE("copy", "[functions][array]") {
    check_function({
        .name = "copy",
        .inputs = {{.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::copy(xs[0], Device::native())}; },
        .reference = [](const Arrays& xs) { return Arrays{xs[0]}; },
    });
    const Variable x(ops::zeros({2}));
    const Variable y = F::copy(x, Device::native());
    CHECK(y.array().storage() != x.array().storage());  // a copy, even on the same device
    if (!global_context().has_backend(DeviceKind::kCuda)) CHECK_THROWS_AS(F::copy(x, Device::cuda(0)), Error);
}

TEST_CASE("copy: between devices", "[functions][array][cuda]") {
    if (!global_context().has_backend(DeviceKind::kCuda)) return;
    const Variable x(Array::from_vector<float>({1, 2, 3}, {3}));
    const Variable y = F::copy(x, Device::cuda(0));
    CHECK(y.device() == Device::cuda(0));
    y.set_grad(Array::from_vector<float>({1, 1, 1}, {3}).to_device(Device::cuda(0)));
    y.backward();
    REQUIRE(x.grad().defined());
    CHECK(x.grad().device() == Device::native());
    CHECK(x.grad().to_vector<float>() == std::vector<float>{1, 1, 1});
}
