#pragma once
// Helpers for the tests of the recurrent links: parameter tables, random inputs, value
// checks and the link gradient check (tests/links/link_check.h).

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "core/ops/random.h"
#include "functions/array.h"
#include "links/link.h"
#include "tests/links/link_check.h"
#include "tests/testing/testing.h"

namespace rensa::testing {

// (name, shape) of every parameter in namedparams order.
inline std::vector<std::pair<std::string, Shape>> param_table(const links::Link& link) {
    std::vector<std::pair<std::string, Shape>> out;
    for (const auto& [name, p] : link.namedparams()) {
        out.emplace_back(name, p.is_initialized() ? p.shape() : Shape{});
    }
    return out;
}

inline Array randn(const Shape& shape, Dtype dtype = Dtype::kFloat32) { return ops::normal(shape, 0.0, 1.0, dtype); }

// Every parameter of `link` as float64 (the gradient checks run in float64).
inline void to_float64(const links::Link& link) {
    for (const links::Parameter& p : link.params()) p.set_array(p.array().astype(Dtype::kFloat64));
}

// All of `vs` flattened and joined: one output for check_link_backward.
inline Variable joined(const std::vector<Variable>& vs) {
    std::vector<Variable> flat;
    for (const Variable& v : vs) flat.push_back(rensa::reshape(v, Shape{v.size()}));
    return F::concat(flat, 0);
}

// A path for a temporary file, removed at the end of the scope.
class TempPath {
public:
    // Unique per process, so the Release and ASan suites may run at the same time.
    explicit TempPath(const std::string& stem)
        : path_{"/tmp/rensa_links_rnn_" + stem + "_" + std::to_string(::getpid()) + ".npz"} {}
    ~TempPath() { std::remove(path_.c_str()); }
    TempPath(const TempPath&) = delete;
    TempPath& operator=(const TempPath&) = delete;
    const std::string& str() const { return path_; }

private:
    std::string path_;
};

}  // namespace rensa::testing
