// softmax and log_softmax: validate, allocate the output and call the device's kernel.

#include "core/ops/softmax.h"

#include <string_view>

#include "core/backend.h"
#include "core/error.h"

namespace rensa::ops {
namespace {

Array run_softmax(const Array& x, int axis, bool log, std::string_view name) {
    RENSA_CHECK(is_float(x.dtype()), DtypeError, name,
                ": Expect: x.dtype.kind == 'f', Actual: ", dtype_name(x.dtype()));
    const int ax = normalize_axis(axis, x.ndim(), name);
    Array y = Array::empty(x.shape(), x.dtype(), x.device());
    if (x.size() == 0) return y;
    global_context().kernels(x.device()).softmax({.x = x, .axis = ax, .log = log, .y = y});
    return y;
}

}  // namespace

Array softmax(const Array& x, int axis) { return run_softmax(x, axis, false, "softmax"); }
Array log_softmax(const Array& x, int axis) { return run_softmax(x, axis, true, "log_softmax"); }

}  // namespace rensa::ops
