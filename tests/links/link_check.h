#pragma once
// Gradient check of a link (shared by the tests of tests/links/{normalization,activation,
// loss,model}): the derivative of sum(f(xs) * gy) along one random unit direction in the
// space of the float inputs *and* the link's parameters, from backward (the parameters'
// grads) against central differences (the parameters perturbed in place, then restored).
// check_backward cannot see the parameters' grads, so links get this instead.
// Also: the NPZ keys a link saves and a round trip through a temporary file.

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "autograd/variable.h"
#include "core/backend.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "core/ops/reduction.h"
#include "links/link.h"
#include "links/parameter.h"
#include "serializers/npz.h"
#include "serializers/npz_reader.h"

namespace rensa::testing {

struct LinkCheckOptions {
    double eps = 1e-4;
    double atol = 1e-6, rtol = 1e-5;
};

namespace detail {

inline double dot64(const Array& a, const Array& b) {
    return ops::sum(ops::multiply(a.astype(Dtype::kFloat64), b.astype(Dtype::kFloat64))).item<double>();
}

// sum(f(x + t dx) * gy) with every parameter set to p + t dp (no graph).
inline double shifted_value(const std::function<Variable(const std::vector<Variable>&)>& f,
                            const std::vector<Array>& xs, const std::vector<Array>& dxs,
                            const std::vector<links::Parameter>& params, const std::vector<Array>& p0,
                            const std::vector<Array>& dps, const Array& gy, double t) {
    NoBackpropMode no_graph;
    std::vector<Variable> vars;
    for (size_t i = 0; i < xs.size(); ++i) {
        vars.emplace_back(dxs[i].defined()
                              ? ops::add(xs[i].astype(Dtype::kFloat64), ops::multiply(dxs[i], t)).astype(xs[i].dtype())
                              : xs[i],
                          false);
    }
    for (size_t i = 0; i < params.size(); ++i) params[i].array().assign(ops::add(p0[i], ops::multiply(dps[i], t)));
    return dot64(f(vars).array(), gy);
}

}  // namespace detail

// Checks f's backward with respect to the float `xs` and `params` (all initialised).
inline void check_link_backward(const std::function<Variable(const std::vector<Variable>&)>& f,
                                const std::vector<Array>& xs, const std::vector<links::Parameter>& params,
                                const Array& gy, const LinkCheckOptions& options = {}) {
    std::vector<Array> dxs, dps, p0;
    double norm2 = 0;
    for (const Array& x : xs) {
        dxs.push_back(is_float(x.dtype()) ? ops::normal(x.shape(), 0.0, 1.0, Dtype::kFloat64) : Array{});
        if (dxs.back().defined()) norm2 += detail::dot64(dxs.back(), dxs.back());
    }
    for (const links::Parameter& p : params) {
        dps.push_back(ops::normal(p.shape(), 0.0, 1.0, Dtype::kFloat64));
        norm2 += detail::dot64(dps.back(), dps.back());
        p0.push_back(p.array().astype(Dtype::kFloat64));
    }
    for (Array& d : dxs) d = d.defined() ? ops::divide(d, std::sqrt(norm2)) : d;
    for (Array& d : dps) d = ops::divide(d, std::sqrt(norm2));
    // Analytical.
    std::vector<Variable> vars;
    for (const Array& x : xs) vars.emplace_back(x, is_float(x.dtype()));
    for (const links::Parameter& p : params) p.cleargrad();
    const Variable y = f(vars);
    y.set_grad(gy);
    y.backward();
    double analytical = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
        if (dxs[i].defined() && vars[i].grad().defined()) analytical += detail::dot64(vars[i].grad(), dxs[i]);
    }
    for (size_t i = 0; i < params.size(); ++i) {
        REQUIRE(params[i].grad().defined());
        analytical += detail::dot64(params[i].grad(), dps[i]);
    }
    // Numerical.
    const double plus = detail::shifted_value(f, xs, dxs, params, p0, dps, gy, options.eps);
    const double minus = detail::shifted_value(f, xs, dxs, params, p0, dps, gy, -options.eps);
    for (size_t i = 0; i < params.size(); ++i) params[i].array().assign(p0[i]);
    const double numerical = (plus - minus) / (2 * options.eps);
    INFO("analytical " << analytical << ", numerical " << numerical);
    CHECK(std::abs(numerical - analytical) <= options.atol + options.rtol * std::abs(analytical));
}

// True when a CUDA device can run the [cuda] tests (they return early otherwise).
inline bool has_cuda() { return global_context().has_backend(DeviceKind::kCuda); }

// Saves `link` with save_npz to a temporary file, loads that file into `target` with
// load_npz and returns the file's keys, sorted.
inline std::vector<std::string> npz_round_trip(links::Link& link, links::Link& target) {
    static int counter = 0;
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("rensa_link_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".npz");
    serializers::save_npz(path.string(), link);
    std::vector<std::string> keys = serializers::NpzReader::open_file(path.string()).keys();
    std::sort(keys.begin(), keys.end());
    try {
        serializers::load_npz(path.string(), target);
    } catch (...) {
        std::filesystem::remove(path);
        throw;
    }
    std::filesystem::remove(path);
    return keys;
}

}  // namespace rensa::testing
