#pragma once
// Checks the initializers share (private to links/initializers).

#include <string_view>

#include "core/error.h"
#include "links/initializer.h"

namespace rensa::initializers::detail {

// Chainer asserts array.dtype == initializer.dtype when the initializer names one.
inline void check_dtype(const Initializer& initializer, const Array& array, std::string_view name) {
    RENSA_CHECK(!initializer.dtype() || *initializer.dtype() == array.dtype(), DtypeError, name,
                ": the initializer's dtype is ", *initializer.dtype(), " but the array's is ", array.dtype());
}

}  // namespace rensa::initializers::detail
