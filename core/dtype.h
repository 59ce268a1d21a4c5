#pragma once
// Dtypes of rensa with numpy's names, item sizes, `.npy` descriptors and promotion.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace rensa {

enum class Dtype : uint8_t { kBool, kInt8, kUInt8, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64 };

inline constexpr int kNumDtypes = 9;
inline constexpr Dtype kAllDtypes[kNumDtypes] = {Dtype::kBool,     Dtype::kInt8,    Dtype::kUInt8,
                                                 Dtype::kInt32,    Dtype::kInt64,   Dtype::kFloat16,
                                                 Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64};

// Bytes per element.
int64_t itemsize(Dtype dtype);
// numpy's name: "float32", "bool", "bfloat16" (ml_dtypes' name), ...
std::string_view dtype_name(Dtype dtype);
// The `.npy` header descriptor: "<f4", "|b1", ... bfloat16 has none in numpy and is written as "<V2".
std::string_view npy_descr(Dtype dtype);
// Parses a name ("float32"), a numpy character code ("f4", "f") or a descriptor ("<f4");
// throws DtypeError listing the accepted names.
Dtype dtype_from_name(std::string_view name);

bool is_float(Dtype dtype);     // float16, bfloat16, float32, float64
bool is_integral(Dtype dtype);  // int8, uint8, int32, int64 (not bool)
bool is_signed(Dtype dtype);    // signed integers and floats

// numpy's promotion of two array dtypes (np.result_type). Where numpy would pick a
// dtype rensa lacks (int16 for int8 with uint8) the next wider one (int32) is used;
// bfloat16 promotes like float16, and float16 with bfloat16 gives float32.
Dtype result_type(Dtype a, Dtype b);

// The default float dtype (numpy's float64) used when integers become floats.
inline constexpr Dtype kDefaultFloat = Dtype::kFloat64;

std::ostream& operator<<(std::ostream& os, Dtype dtype);

}  // namespace rensa
