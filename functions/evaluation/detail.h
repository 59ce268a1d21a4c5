#pragma once
// Shared by the evaluation files (private): checks of scores and labels, built on
// autograd/check.h.

#include "autograd/check.h"
#include "autograd/variable.h"
#include "core/error.h"

namespace rensa::functions::evaluation_detail {

// Chainer's type check of scores and labels: y floating point, t signed integers.
inline void check_scores_labels(const char* function, const Variable& y, const Variable& t) {
    expect_float(y, function, "y");
    expect_signed_integer(t, function, "t");
}

// y (N, C, *rest, 1...) against t (N, *rest), as Chainer's Accuracy type check.
inline void check_class_shapes(const char* function, const Variable& y, const Variable& t, bool trailing_ones) {
    const Shape& ys = y.shape();
    const Shape& ts = t.shape();
    bool ok = ys.size() >= 2 && ts.size() >= 1 && ys.size() >= ts.size() + 1 && ys[0] == ts[0];
    for (int d = 1; ok && d < ts.size(); ++d) ok = ys[d + 1] == ts[d];
    for (int d = ts.size() + 1; ok && d < ys.size(); ++d) ok = trailing_ones && ys[d] == 1;
    RENSA_CHECK(ok, DimensionError, function, ": Expect: y.shape[0] == t.shape[0] and y.shape[2:] == t.shape[1:]",
                trailing_ones ? " (plus trailing 1s)" : "", ", Actual: y.shape ", ys, ", t.shape ", ts);
}

}  // namespace rensa::functions::evaluation_detail
