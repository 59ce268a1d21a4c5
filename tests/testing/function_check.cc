#include "tests/testing/function_check.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/random.h"

namespace rensa::testing {
namespace {

Tolerance default_backward_tol(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
        case Dtype::kBFloat16:
            return {5e-2, 5e-2};
        case Dtype::kFloat32:
            return {1e-3, 1e-3};
        default:
            return {1e-5, 1e-4};
    }
}

Tolerance default_double_backward_tol(Dtype dtype) {
    return dtype == Dtype::kFloat64 ? Tolerance{1e-4, 1e-3} : Tolerance{1e-2, 1e-2};
}

std::vector<double> generate(const InputSpec& spec, uint64_t seed) {
    const int64_t n = shape_size(spec.shape);
    if (spec.values) {
        std::vector<double> v = spec.values(n, seed);
        REQUIRE(static_cast<int64_t>(v.size()) == n);
        return v;
    }
    std::mt19937_64 rng(seed * 7919 + 17);
    std::uniform_real_distribution<double> dist(spec.low, spec.high);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = dist(rng);
    return v;
}

bool swept(const InputSpec& spec) { return !spec.dtype.has_value(); }

// The inputs in `dtype` (swept ones) on `device` with `layout` applied to the float ones.
// The values are made on the host, so every device sees the same ones; with_layout's
// buffers go to the default device, which the caller's DeviceScope sets to `device`.
Arrays make_inputs(const FunctionCheck& c, Dtype dtype, Layout layout, Device device = Device::native()) {
    Arrays xs;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        const InputSpec& spec = c.inputs[i];
        const Array host = Array::from_vector(generate(spec, c.seed + i), spec.shape, Device::native())
                               .astype(spec.dtype.value_or(dtype));
        const Array base = host.to_device(device);
        xs.push_back(is_float(base.dtype()) ? with_layout(base, layout) : base);
    }
    return xs;
}

std::string context(const FunctionCheck& c, const char* phase, Dtype dtype, Layout layout, Device device) {
    std::ostringstream os;
    os << c.name << " " << phase << " [" << dtype_name(dtype) << ", " << layout_name(layout);
    if (device != Device::native()) os << ", " << device;
    os << "]";
    return os.str();
}

// The function with the non-differentiable inputs bound, over the differentiable ones.
struct Bound {
    VariableFunction func;
    Arrays args;
};
Bound bind_constants(const FunctionCheck& c, const Arrays& xs) {
    std::vector<int> slots;  // for each input: index into args, or -1 when constant
    Arrays args;
    for (size_t i = 0; i < xs.size(); ++i) {
        const bool free = is_float(xs[i].dtype()) && c.inputs[i].differentiable;
        slots.push_back(free ? static_cast<int>(args.size()) : -1);
        if (free) args.push_back(xs[i]);
    }
    VariableFunction func = [&c, xs, slots](const Vars& free_vars) {
        Vars all;
        for (size_t i = 0; i < xs.size(); ++i) {
            all.push_back(slots[i] >= 0 ? free_vars[static_cast<size_t>(slots[i])] : Variable(xs[i], false));
        }
        return c.func(all);
    };
    return {std::move(func), std::move(args)};
}

void check_forward(const FunctionCheck& c, Dtype dtype, Device device) {
    Arrays ref_inputs;
    for (const Array& x : make_inputs(c, dtype, Layout::kContiguous)) ref_inputs.push_back(x.astype(Dtype::kFloat64));
    Arrays expected;
    {
        const DeviceScope host{Device::native()};  // references are host loops, whatever the device under test
        expected = c.reference(ref_inputs);
    }
    const Tolerance tol = c.forward_tol.get(dtype).value_or(tolerance(dtype));
    for (const Layout layout : c.layouts) {
        INFO(context(c, "forward", dtype, layout, device));
        Vars vars;
        for (const Array& x : make_inputs(c, dtype, layout, device)) vars.emplace_back(x, is_float(x.dtype()));
        const Vars ys = c.func(vars);
        REQUIRE(ys.size() == expected.size());
        for (size_t k = 0; k < ys.size(); ++k) {
            INFO("output " << k);
            if (is_float(ys[k].dtype()) && std::all_of(c.inputs.begin(), c.inputs.end(), swept)) {
                CHECK(ys[k].dtype() == dtype);
            }
            const Tolerance out_tol = is_float(ys[k].dtype()) ? tol : Tolerance{0, 0};
            check_allclose(ys[k].array(), expected[k].astype(Dtype::kFloat64), out_tol);
        }
    }
}

Arrays random_like(const Vars& ys) {
    Arrays gys;
    for (const Variable& y : ys) {
        gys.push_back(ops::normal(y.shape(), 0.0, 1.0, Dtype::kFloat64, y.array().device()).astype(y.dtype()));
    }
    return gys;
}

Arrays random_like(const Arrays& xs) {
    Arrays out;
    for (const Array& x : xs) {
        out.push_back(ops::normal(x.shape(), 0.0, 1.0, Dtype::kFloat64, x.device()).astype(x.dtype()));
    }
    return out;
}

std::vector<Layout> gradient_layouts(const FunctionCheck& c, Dtype dtype) {
    std::vector<Layout> layouts{Layout::kContiguous};
    if (dtype != Dtype::kFloat64) return layouts;
    for (const Layout layout : c.layouts) {
        if (layout != Layout::kContiguous) {
            layouts.push_back(layout);
            break;
        }
    }
    return layouts;
}

CheckBackwardOptions options_for(const FunctionCheck& c, Dtype dtype, Tolerance tol) {
    const bool low = dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16;
    return {.eps = low ? std::max(c.eps, 1e-2) : c.eps,
            .atol = tol.atol,
            .rtol = tol.rtol,
            .dtype = dtype == Dtype::kFloat64 ? std::nullopt : std::optional<Dtype>(Dtype::kFloat64)};
}

void check_gradients(const FunctionCheck& c, Dtype dtype, Device device) {
    for (const Layout layout : gradient_layouts(c, dtype)) {
        const Bound bound = bind_constants(c, make_inputs(c, dtype, layout, device));
        if (bound.args.empty()) return;
        Vars probe;
        for (const Array& a : bound.args) probe.emplace_back(a, false);
        const Arrays gys = random_like(bound.func(probe));
        if (c.backward) {
            const std::string where = context(c, "check_backward", dtype, layout, device);
            const Tolerance tol = c.backward_tol.get(dtype).value_or(default_backward_tol(dtype));
            try {
                check_backward(bound.func, bound.args, gys, options_for(c, dtype, tol));
            } catch (const GradientCheckError& e) {
                FAIL(where << ": " << e.what());
            }
        }
        const bool low = dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16;
        if (c.double_backward && !low) {
            const std::string where = context(c, "check_double_backward", dtype, layout, device);
            const Tolerance tol = c.double_backward_tol.get(dtype).value_or(default_double_backward_tol(dtype));
            try {
                check_double_backward(bound.func, bound.args, gys, random_like(bound.args), options_for(c, dtype, tol));
            } catch (const GradientCheckError& e) {
                FAIL(where << ": " << e.what());
            }
        }
    }
}

// Note [Device sweep]: every check runs on native:0 and, when a CUDA backend is
// installed (RENSA_TEST_ON_CUDA builds install it in main.cc; it installs only with a
// GPU), again on cuda:0 inside a DeviceScope, so arrays the function makes itself land
// there too. References always run on the host, so both devices meet the same float64
// values. A func that captures arrays (a fixed mask, say) moves them to its inputs' device
// (`mask.to_device(xs[0].device())`, free on native); one that does not throws DeviceError
// on cuda:0 and is warned about and skipped there. Without the backend nothing changes.
std::vector<Device> test_devices() {
    std::vector<Device> devices{Device::native()};
    if (global_context().has_backend(DeviceKind::kCuda)) devices.push_back(Device::cuda(0));
    return devices;
}

}  // namespace

std::optional<Tolerance> DtypeTolerances::get(Dtype dtype) const {
    switch (dtype) {
        case Dtype::kFloat16:
        case Dtype::kBFloat16:
            return float16;
        case Dtype::kFloat32:
            return float32;
        default:
            return float64;
    }
}

void check_function(const FunctionCheck& c) {
    REQUIRE(c.func);
    for (const Device device : test_devices()) {
        const DeviceScope scope{device};
        try {
            for (const Dtype dtype : c.dtypes) {
                if (c.reference) check_forward(c, dtype, device);
                if (c.backward || c.double_backward) check_gradients(c, dtype, device);
            }
        } catch (const DeviceError& e) {
            // A func that captures arrays made on the host (a fixed mask, class weights,
            // pooling indexes) cannot run on another device: warned, not failed, there
            // (scripts/gpu-check.sh counts these lines). On native:0 it is a failure.
            if (device == Device::native()) throw;
            WARN(c.name << ": not run on " << device << ": " << e.what());
        }
    }
}

Array map(const Array& x, const std::function<double(double)>& f) {
    std::vector<double> v = to_doubles(x);
    for (double& e : v) e = f(e);
    return f64(v, x.shape());
}

ValueGenerator away_from(std::vector<double> kinks, double low, double high, double margin) {
    return [kinks = std::move(kinks), low, high, margin](int64_t n, uint64_t seed) {
        std::mt19937_64 rng(seed * 104729 + 3);
        std::uniform_real_distribution<double> dist(low, high);
        std::vector<double> v;
        while (static_cast<int64_t>(v.size()) < n) {
            const double x = dist(rng);
            const bool near =
                std::any_of(kinks.begin(), kinks.end(), [&](double k) { return std::abs(x - k) < margin; });
            if (!near) v.push_back(x);
        }
        return v;
    };
}

ValueGenerator distinct(double low, double high) {
    return [low, high](int64_t n, uint64_t seed) {
        std::vector<double> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            v[static_cast<size_t>(i)] = low + (high - low) * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
        }
        std::shuffle(v.begin(), v.end(), std::mt19937_64(seed * 31 + 5));
        return v;
    };
}

ValueGenerator integers(int64_t low, int64_t high) {
    return [low, high](int64_t n, uint64_t seed) {
        std::mt19937_64 rng(seed * 6151 + 11);
        std::uniform_int_distribution<int64_t> dist(low, high - 1);
        std::vector<double> v(static_cast<size_t>(n));
        for (double& x : v) x = static_cast<double>(dist(rng));
        return v;
    };
}

Array f64(const std::vector<double>& values, const Shape& shape) {
    return Array::from_vector(values, shape, Device::native());
}

}  // namespace rensa::testing
