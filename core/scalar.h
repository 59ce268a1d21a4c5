#pragma once
// Scalar: a host number (bool, integer or float) passed by value to routines and
// kernels, with numpy's "weak" (NEP 50) promotion against arrays.

#include <concepts>
#include <cstdint>
#include <ostream>

#include "core/dtype.h"
#include "core/half.h"

namespace rensa {

enum class ScalarKind : uint8_t { kBool, kInt, kFloat };

class Scalar {
public:
    Scalar() = default;
    Scalar(bool value) : kind_{ScalarKind::kBool}, int_{value ? 1 : 0}, float_{value ? 1.0 : 0.0} {}  // NOLINT
    template <std::integral T>
    requires(!std::same_as<T, bool>) Scalar(T value)
        : kind_{ScalarKind::kInt}, int_{static_cast<int64_t>(value)}, float_{static_cast<double>(value)} {}  // NOLINT
    template <std::floating_point T>
    Scalar(T value)
        : kind_{ScalarKind::kFloat}, int_{static_cast<int64_t>(value)}, float_{static_cast<double>(value)} {}  // NOLINT
    Scalar(Half value) : Scalar(static_cast<float>(value)) {}                                                  // NOLINT
    Scalar(BFloat16 value) : Scalar(static_cast<float>(value)) {}                                              // NOLINT

    ScalarKind kind() const { return kind_; }
    // The value as T (casting like numpy's astype; floats to integers truncate).
    template <class T>
    T to() const {
        if constexpr (std::same_as<T, bool>) {
            return kind_ == ScalarKind::kFloat ? float_ != 0.0 : int_ != 0;
        } else if constexpr (std::integral<T>) {
            return kind_ == ScalarKind::kFloat ? static_cast<T>(float_) : static_cast<T>(int_);
        } else {
            return kind_ == ScalarKind::kFloat ? T(float_) : T(static_cast<double>(int_));
        }
    }
    double to_double() const { return to<double>(); }
    int64_t to_int() const { return to<int64_t>(); }

    // The dtype this scalar has alone: bool, int64 or float64.
    Dtype default_dtype() const;

private:
    ScalarKind kind_ = ScalarKind::kInt;
    int64_t int_ = 0;
    double float_ = 0.0;
};

// The dtype of `array_dtype op scalar` under numpy 2's rules: a Python int keeps an
// integer array's dtype, a Python float keeps a float array's dtype and turns an
// integer or bool array into float64; bool arrays with an int give int64.
Dtype result_type(Dtype array_dtype, const Scalar& scalar);

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace rensa
