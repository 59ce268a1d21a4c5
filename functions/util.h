#pragma once
// Chainer's utility functions (chainer.functions.util): F::forget.

#include <functional>
#include <vector>

#include "autograd/variable.h"

namespace rensa::functions {

// A function of Variables returning one or more Variables, as forget calls it.
using ForgetFunction = std::function<std::vector<Variable>(const std::vector<Variable>&)>;

// Chainer's forget: calls func(xs) without recording its graph, so its intermediate results
// are freed at once; backward calls func again on the inputs' data and backpropagates through
// that recomputation. The outputs are func's. ValueError when func returns no Variable or an
// undefined one; NotImplementedError on double backprop (Chainer refuses it too). func must
// give the same results when called again (random functions in it draw new noise).
[[nodiscard]] std::vector<Variable> forget(const ForgetFunction& func, const std::vector<Variable>& xs);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
