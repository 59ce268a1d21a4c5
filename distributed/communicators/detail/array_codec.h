#pragma once
// Shape and dtype headers that travel with array payloads (internal): a fixed-size header
// for bcast and send/recv, and self-describing byte blocks (header + payload) for the
// gathers, scatter and alltoall whose shapes differ between ranks.

#include <array>
#include <cstdint>
#include <string>

#include "core/array.h"

namespace rensa::distributed::detail {

inline constexpr int kMaxHeaderDims = 16;
// [dtype, ndim, dims...]; ndim = -1 marks "no array" (an undefined array on a root).
using ArrayHeader = std::array<int64_t, 2 + kMaxHeaderDims>;

// The header of x (undefined x: ndim = -1). Throws DimensionError over kMaxHeaderDims dims.
[[nodiscard]] ArrayHeader make_header(const Array& x, const char* op);
// An uninitialised contiguous native array of the header's shape and dtype.
[[nodiscard]] Array empty_from_header(const ArrayHeader& header);

// A contiguous host copy of x (always a new array, safe to reduce in place).
[[nodiscard]] Array host_copy(const Array& x);
// x itself when it is contiguous and native, else a contiguous host copy.
[[nodiscard]] Array host_contiguous(const Array& x);

// Header + payload bytes of x, and the array back (native).
[[nodiscard]] std::string encode_array(const Array& x, const char* op);
[[nodiscard]] Array decode_array(const std::string& bytes);

}  // namespace rensa::distributed::detail
