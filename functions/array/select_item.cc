// select_item: y[i] = x[i, t[i]], a gather from the flattened x at i * N + t[i].

#include "autograd/check.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

void check_select_item(const Variable& x, const Variable& t) {
    expect_defined(x, "select_item", "x");
    expect_signed_integer(t, "select_item", "t");
    expect_ndim(x, 2, "select_item", "x");
    expect_ndim(t, 1, "select_item", "t");
    RENSA_CHECK(x.shape()[0] == t.shape()[0], DimensionError,
                "select_item: Expect: x.shape[0] == t.shape[0], Actual: ", x.shape()[0], " != ", t.shape()[0]);
}

}  // namespace

Variable select_item(const Variable& x, const Variable& t) {
    check_select_item(x, t);
    const int64_t batch = x.shape()[0], n = x.shape()[1];
    if (t.device().kind != DeviceKind::kNative && n > 0) {
        // Labels on a device are not read back (See Note [Device index wrap]): they wrap there.
        const Array rows = ops::multiply(ops::arange(batch, Dtype::kInt64, x.device()), n);
        const Array flat = ops::add(rows, ops::mod(t.array().astype(Dtype::kInt64, false), n));
        return array_detail::take_along(reshape(x, {batch * n}), flat.to_device(x.device()), 0);
    }
    std::vector<int64_t> flat = t.array().to_vector<int64_t>();
    for (int64_t i = 0; i < batch; ++i) {
        int64_t& v = flat[static_cast<size_t>(i)];
        RENSA_CHECK(v >= -n && v < n, IndexError, "select_item: t[", i, "] = ", v,
                    " is out of range for x.shape[1] = ", n, " (valid labels are in [-", n, ", ", n, "))");
        v = i * n + (v < 0 ? v + n : v);
    }
    const Array indices = Array::from_vector(flat, {batch}, x.device());
    return array_detail::take_along(reshape(x, {batch * n}), indices, 0);
}

}  // namespace rensa::functions
