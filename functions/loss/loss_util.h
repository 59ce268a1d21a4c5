#pragma once
// Checks shared by the loss functions of functions/loss/ (internal).

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "autograd/variable.h"
#include "core/error.h"

namespace rensa::functions::detail {

// Throws ValueError unless `reduce` is one of `valid`, with Chainer's message:
// "only 'sum', 'mean' and 'no' are valid for 'reduce', but 'x' is given".
inline void check_loss_reduce(std::string_view function, std::string_view reduce,
                              std::initializer_list<std::string_view> valid) {
    for (const std::string_view v : valid) {
        if (v == reduce) return;
    }
    std::ostringstream os;
    size_t i = 0;
    for (const std::string_view v : valid) {
        os << (i == 0 ? "" : i + 1 == valid.size() ? " and " : ", ") << "'" << v << "'";
        ++i;
    }
    RENSA_THROW(ValueError, function, ": only ", os.str(), " are valid for 'reduce', but '", reduce, "' is given");
}

// Throws ValueError for an undefined input and DtypeError unless it is floating point.
inline void check_loss_float(std::string_view function, std::string_view name, const Variable& x) {
    RENSA_CHECK(x.defined(), ValueError, function, ": ", name, " is an undefined Variable");
    RENSA_CHECK(is_float(x.dtype()), DtypeError, function, ": Expect: ", name,
                ".dtype.kind == 'f', Actual: ", dtype_name(x.dtype()));
}

// Throws DtypeError / DimensionError unless `b` has `a`'s dtype (and shape when `same_shape`).
inline void check_loss_like(std::string_view function, std::string_view a_name, const Variable& a,
                            std::string_view b_name, const Variable& b, bool same_shape = true) {
    RENSA_CHECK(b.defined(), ValueError, function, ": ", b_name, " is an undefined Variable");
    RENSA_CHECK(a.dtype() == b.dtype(), DtypeError, function, ": Expect: ", a_name, ".dtype == ", b_name,
                ".dtype, Actual: ", dtype_name(a.dtype()), " != ", dtype_name(b.dtype()));
    RENSA_CHECK(!same_shape || a.shape() == b.shape(), DimensionError, function, ": Expect: ", a_name,
                ".shape == ", b_name, ".shape, Actual: ", a.shape(), " != ", b.shape());
}

// Throws ValueError / DtypeError unless `t` is a defined integer Variable.
inline void check_loss_labels(std::string_view function, std::string_view name, const Variable& t) {
    RENSA_CHECK(t.defined(), ValueError, function, ": ", name, " is an undefined Variable");
    RENSA_CHECK(is_integral(t.dtype()), DtypeError, function, ": Expect: ", name,
                ".dtype.kind == 'i', Actual: ", dtype_name(t.dtype()));
}

// Copies integer labels to the host and throws ValueError naming the first value outside
// [0, high) (other than `ignore`) and its flat position.
inline std::vector<int64_t> check_loss_label_range(std::string_view function, std::string_view name, const Array& t,
                                                   int64_t high, std::optional<int64_t> ignore = std::nullopt) {
    std::vector<int64_t> values = t.to_vector<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) {
        const int64_t v = values[i];
        RENSA_CHECK((v >= 0 && v < high) || (ignore && v == *ignore), ValueError, function, ": label ", name,
                    " at flat position ", i, " is ", v, ", outside [0, ", high, ")");
    }
    return values;
}

}  // namespace rensa::functions::detail
