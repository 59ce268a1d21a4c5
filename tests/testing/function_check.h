#pragma once
// The declarative harness every differentiable function is tested with (docs/style.md, rule 9):
// one `check_function` call runs the forward pass against an independent float64
// reference, check_backward and check_double_backward, over float16/float32/float64
// and contiguous and non-contiguous inputs.
//
//   check_function({
//       .name = "relu",
//       .inputs = {{.shape = {3, 4}, .values = away_from({0.0})}},
//       .func = [](const Vars& xs) { return Vars{F::relu(xs[0])}; },
//       .reference = [](const Arrays& xs) { return Arrays{map(xs[0], [](double v) { return v > 0 ? v : 0; })}; },
//   });

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autograd/gradient_check.h"
#include "autograd/variable.h"
#include "core/array.h"
#include "tests/testing/testing.h"

namespace rensa::testing {

using Vars = std::vector<Variable>;
using Arrays = std::vector<Array>;
// Float64 generator of n input values from a seed.
using ValueGenerator = std::function<std::vector<double>(int64_t n, uint64_t seed)>;

// How one input of the function under test is made.
struct InputSpec {
    Shape shape;
    double low = -1.0, high = 1.0;  // uniform values in [low, high) unless `values` is set
    ValueGenerator values{};
    // Set for integer inputs (labels, indices): they keep this dtype and layout, are not
    // swept over dtypes and are not differentiated. Float inputs with a fixed dtype are
    // allowed too (they are still differentiated).
    std::optional<Dtype> dtype{};
    bool differentiable = true;  // false: a float input held constant (grad not checked)
};

// Per-dtype tolerances; unset entries use the harness defaults (see function_check.cc).
struct DtypeTolerances {
    std::optional<Tolerance> float16{}, float32{}, float64{};
    std::optional<Tolerance> get(Dtype dtype) const;
};

struct FunctionCheck {
    std::string name;
    std::vector<InputSpec> inputs;
    VariableFunction func;
    // Float64 contiguous arrays in (the very values the function saw, rounded to the
    // tested dtype), float64 arrays out, one per output. Must be written independently
    // of rensa's functions (naive loops over to_doubles). Empty: no forward check.
    std::function<Arrays(const Arrays&)> reference{};
    std::vector<Dtype> dtypes{Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64};
    std::vector<Layout> layouts{Layout::kContiguous, Layout::kStrided, Layout::kTransposed, Layout::kOffset};
    bool backward = true;
    bool double_backward = true;  // only where Chainer supports double backprop
    DtypeTolerances forward_tol{}, backward_tol{}, double_backward_tol{};
    double eps = 1e-3;  // finite-difference step (float64); float16 uses at least 1e-2
    uint64_t seed = 0;
};

// Runs every check of `check` (Catch2 assertions; gradient-check failures fail the test
// with the function's name, dtype and layout in the message).
void check_function(const FunctionCheck& check);

// --- Helpers for references and inputs.
// Elementwise map of a float64 array (any layout) to a float64 contiguous array.
Array map(const Array& x, const std::function<double(double)>& f);
// Uniform values in [low, high) whose distance to every point in `kinks` is at least
// `margin`: keeps inputs away from non-differentiable points.
ValueGenerator away_from(std::vector<double> kinks, double low = -1.0, double high = 1.0, double margin = 0.05);
// Distinct values spread over [low, high) in random order (for max/min/sort-like functions).
ValueGenerator distinct(double low = -1.0, double high = 1.0);
// Integers in [low, high) (labels); use with InputSpec::dtype = kInt32.
ValueGenerator integers(int64_t low, int64_t high);
// A float64 array from values and shape (contiguous).
Array f64(const std::vector<double>& values, const Shape& shape);

}  // namespace rensa::testing
