#pragma once
// Checks shared by the tests of the connection links (Linear, Convolution2D, ...): gradients
// with respect to the inputs and every parameter element, copies, devices, the keys a
// serializer sees and an NPZ round trip.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/gradient_check.h"
#include "autograd/modes.h"
#include "core/ops/random.h"
#include "links/link.h"
#include "serializers/npz.h"
#include "tests/testing/testing.h"

namespace rensa::testing {

// Calls a link the way Link::operator() does: one input to forward(x), several to forward(xs).
inline Variable call(links::Link& link, const std::vector<Variable>& xs) {
    return xs.size() == 1 ? link.forward(xs[0]) : link.forward(xs);
}

// Uniform values in [-1, 1) from the global generator (seed it first).
inline Array random_array(const Shape& shape, Dtype dtype = Dtype::kFloat32) {
    return ops::uniform(shape, -1.0, 1.0, dtype);
}

inline std::vector<Variable> variables(const std::vector<Array>& xs) {
    std::vector<Variable> vars;
    for (const Array& x : xs) vars.emplace_back(x, is_float(x.dtype()));
    return vars;
}

// The '/'-joined parameter names, in registration order.
inline std::vector<std::string> param_names(const links::Link& link) {
    std::vector<std::string> names;
    for (const auto& entry : link.namedparams()) names.push_back(entry.first);
    return names;
}

// Gives every (initialised) parameter a float64 array with the same values, so gradients
// can be checked against float64 central differences.
inline void to_float64(const links::Link& link) {
    for (const auto& entry : link.namedparams()) entry.second.set_array(entry.second.array().astype(Dtype::kFloat64));
}

// Checks the link's backward for the float inputs (check_backward) and for every element of
// every parameter (numerical_grad with the parameter's array swapped in). Parameters must be
// initialised and float64 (to_float64), float inputs float64.
inline void check_link_gradients(links::Link& link, const std::vector<Array>& xs, Tolerance tol = {1e-6, 1e-5}) {
    Array gy;
    {
        NoBackpropMode no_graph;
        gy = random_array(call(link, variables(xs)).shape(), Dtype::kFloat64);
    }
    check_backward([&](const std::vector<Variable>& vs) { return std::vector<Variable>{call(link, vs)}; }, xs, {gy},
                   {.atol = tol.atol, .rtol = tol.rtol});
    for (const auto& [name, param] : link.namedparams()) {
        INFO("parameter " << name);
        link.cleargrads();
        const Variable y = call(link, variables(xs));
        y.set_grad(gy);
        y.backward();
        REQUIRE(param.grad().defined());
        const Array analytical = param.grad();
        const Array original = param.array();
        const auto f = [&, param = param](const std::vector<Array>& values) {
            param.set_array(values[0]);
            NoBackpropMode no_graph;
            return std::vector<Array>{call(link, variables(xs)).array()};
        };
        const std::vector<Array> numerical = numerical_grad(f, {original}, {gy});
        param.set_array(original);
        check_allclose(analytical, numerical[0], tol);
    }
}

// copy() (share mode): a new T whose members are new parameters over the same arrays, giving
// the same outputs, with grads of their own (See Note [Link copies]).
template <class T>
void check_copy_shares_arrays(T& link, const std::vector<Array>& xs) {
    const std::shared_ptr<T> copy = std::dynamic_pointer_cast<T>(link.copy());
    REQUIRE(copy != nullptr);
    const auto original_params = link.namedparams(), copied_params = copy->namedparams();
    REQUIRE(original_params.size() == copied_params.size());
    for (size_t i = 0; i < original_params.size(); ++i) {
        const links::Parameter &p = original_params[i].second, &q = copied_params[i].second;
        INFO("parameter " << original_params[i].first);
        CHECK(original_params[i].first == copied_params[i].first);
        CHECK_FALSE(p == q);
        CHECK(p.array().raw_data() == q.array().raw_data());
    }
    link.cleargrads();
    copy->cleargrads();
    const Variable y = call(*copy, variables(xs));
    check_allclose(y.array(), call(link, variables(xs)).array());
    y.set_grad(ops::uniform(y.shape(), -1.0, 1.0, y.dtype()));
    y.backward();
    for (size_t i = 0; i < original_params.size(); ++i) {
        INFO("parameter " << original_params[i].first);
        CHECK(copied_params[i].second.grad().defined());
        CHECK_FALSE(original_params[i].second.grad().defined());
    }
}

// to_device(native) keeps the values and the outputs; every parameter reports the device.
inline void check_to_device_round_trip(links::Link& link, const std::vector<Array>& xs) {
    Array before;
    {
        NoBackpropMode no_graph;
        before = call(link, variables(xs)).array();
    }
    link.to_device(Device::native());
    CHECK(link.device() == Device::native());
    for (const auto& entry : link.namedparams()) CHECK(entry.second.device() == Device::native());
    NoBackpropMode no_graph;
    check_allclose(call(link, variables(xs)).array(), before);
}

// A saving backend that records the keys it is given, in order.
class KeyRecorder final : public serializers::SerializerBackend {
public:
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array&) override { keys.push_back(key); }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return {}; }
    void defer(std::function<void()>) override {}
    std::vector<std::string> keys;
};

// The keys link.serialize writes (Chainer's NPZ keys: "W", "plain/b", ...).
inline std::vector<std::string> serialized_keys(links::Link& link) {
    const auto recorder = std::make_shared<KeyRecorder>();
    link.serialize(serializers::Serializer{recorder});
    return recorder->keys;
}

// save_npz(src) then load_npz into dst (same structure): dst's parameters equal src's.
inline void check_npz_round_trip(links::Link& src, links::Link& dst, const std::string& file_stem) {
    // The pid keeps concurrent runs (a Release and an ASan build) apart.
    const std::string name = "rensa_links_connection_" + file_stem + "_" + std::to_string(getpid()) + ".npz";
    const std::string path = (std::filesystem::temp_directory_path() / name).string();
    serializers::save_npz(path, src);
    serializers::load_npz(path, dst);
    std::filesystem::remove(path);
    const auto a = src.namedparams(), b = dst.namedparams();
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        INFO("parameter " << a[i].first);
        CHECK(a[i].first == b[i].first);
        REQUIRE(b[i].second.is_initialized());
        check_allclose(b[i].second.array(), a[i].second.array(), {0.0, 0.0});
    }
}

}  // namespace rensa::testing
