#include "tests/cuda/cuda_testing.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <random>

#include "core/backend.h"
#include "core/dtype.h"
#include "cuda/cuda_backend.h"

namespace rensa::testing {
namespace {

std::vector<double> random_values(int64_t n, Dtype dtype, uint64_t seed, double low, double high) {
    std::mt19937_64 rng{seed * 0x9E3779B97F4A7C15ULL + 12345};
    std::vector<double> values(static_cast<size_t>(n));
    for (double& v : values) {
        if (dtype == Dtype::kBool) {
            v = static_cast<double>(rng() & 1U);
        } else if (is_float(dtype)) {
            std::uniform_real_distribution<double> dist{low, high};
            do v = dist(rng);
            while (std::abs(v) < 0.05 && (low < -0.05 || high > 0.05));
        } else {
            const auto lo = static_cast<int64_t>(std::ceil(low)), hi = static_cast<int64_t>(std::ceil(high));
            std::uniform_int_distribution<int64_t> dist{lo, std::max(lo, hi - 1)};
            do v = static_cast<double>(dist(rng));
            while (v == 0.0 && hi - lo > 1);
        }
    }
    return values;
}

}  // namespace

bool cuda_ready() {
    static const bool ready = cuda::install_backend() > 0;
    return ready;
}

void report_cuda_skip() { std::cout << "RENSA_SKIPPED: no CUDA device, test not run" << std::endl; }

Array random_array(const Shape& shape, Dtype dtype, uint64_t seed, double low, double high, Layout layout) {
    return make_array(random_values(shape_size(shape), dtype, seed, low, high), shape, dtype, layout);
}

Array to_cuda(const Array& a, Layout layout) {
    const Array contiguous = a.as_contiguous().to_device(Device::cuda(0));
    if (layout == Layout::kContiguous) return contiguous;
    DeviceScope on_gpu{Device::cuda(0)};
    return with_layout(contiguous, layout);
}

void check_matches_native(const ArrayFn& fn, const std::vector<Array>& inputs, Layout layout,
                          std::optional<Tolerance> tol) {
    std::vector<Array> native_inputs, cuda_inputs;
    for (const Array& x : inputs) {
        native_inputs.push_back(with_layout(x, layout));
        cuda_inputs.push_back(to_cuda(x, layout));
    }
    const std::vector<Array> expected = fn(native_inputs);
    std::vector<Array> actual;
    {
        DeviceScope on_gpu{Device::cuda(0)};
        actual = fn(cuda_inputs);
    }
    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        INFO("output " << i << ", layout " << layout_name(layout) << ", dtype " << dtype_name(expected[i].dtype()));
        CHECK(actual[i].device() == Device::cuda(0));
        REQUIRE(actual[i].dtype() == expected[i].dtype());
        check_allclose(actual[i], expected[i], tol.value_or(tolerance(expected[i].dtype())));
    }
}

Tolerance product_tolerance(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
            return {5e-2, 1e-2};
        case Dtype::kBFloat16:
            return {2.5e-1, 3e-2};
        case Dtype::kFloat32:
            return {1e-3, 1e-4};
        case Dtype::kFloat64:
            return {1e-10, 1e-10};
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            break;
    }
    return {0.0, 0.0};
}

}  // namespace rensa::testing
