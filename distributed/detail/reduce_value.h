#pragma once
// One element of rensa's MPI reductions, shared by the float16/bfloat16 MPI ops
// (distributed/detail/mpi_types.cc) and the signature envelope's payload
// (distributed/detail/signature_check.cc), so that both reduce exactly alike: floats with
// NaN winning max/min (numpy), halves in float32 rounded back once per step, integers
// wrapping through the unsigned type (as MPI_SUM does in practice), bool as any (sum, max)
// or all (min), as mpi_op maps it.

#include <algorithm>
#include <type_traits>

#include "core/half.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {

template <class T>
T reduce_value(MpiReduce op, T a, T b) {
    if constexpr (std::is_same_v<T, bool>) {
        return op == MpiReduce::kMin ? (a && b) : (a || b);
    } else if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        switch (op) {
            case MpiReduce::kSum:
                return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
            case MpiReduce::kMax:
                return std::max(a, b);
            case MpiReduce::kMin:
                return std::min(a, b);
        }
        return a;
    } else if constexpr (std::is_floating_point_v<T>) {
        switch (op) {
            case MpiReduce::kSum:
                return a + b;
            case MpiReduce::kMax:
                return (a != a || a > b) ? a : b;
            case MpiReduce::kMin:
                return (a != a || a < b) ? a : b;
        }
        return a;
    } else {  // Half, BFloat16
        return T(reduce_value(op, static_cast<float>(a), static_cast<float>(b)));
    }
}

}  // namespace rensa::distributed::detail
