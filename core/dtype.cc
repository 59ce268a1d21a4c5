#include "core/dtype.h"

#include <array>

#include "core/error.h"

namespace rensa {
namespace {

struct DtypeInfo {
    std::string_view name;
    std::string_view descr;
    std::string_view code;  // numpy's short code without byte order
    int64_t itemsize;
};

constexpr std::array<DtypeInfo, kNumDtypes> kInfo = {{
    {"bool", "|b1", "b1", 1},
    {"int8", "|i1", "i1", 1},
    {"uint8", "|u1", "u1", 1},
    {"int32", "<i4", "i4", 4},
    {"int64", "<i8", "i8", 8},
    {"float16", "<f2", "f2", 2},
    {"bfloat16", "<V2", "V2", 2},
    {"float32", "<f4", "f4", 4},
    {"float64", "<f8", "f8", 8},
}};

const DtypeInfo& info(Dtype dtype) { return kInfo[static_cast<int>(dtype)]; }

// Rows and columns in Dtype order: b, i1, u1, i4, i8, f2, bf16, f4, f8.
constexpr Dtype B = Dtype::kBool, I1 = Dtype::kInt8, U1 = Dtype::kUInt8, I4 = Dtype::kInt32, I8 = Dtype::kInt64,
                F2 = Dtype::kFloat16, BF = Dtype::kBFloat16, F4 = Dtype::kFloat32, F8 = Dtype::kFloat64;
constexpr Dtype kPromotion[kNumDtypes][kNumDtypes] = {
    /* b   */ {B, I1, U1, I4, I8, F2, BF, F4, F8},
    /* i1  */ {I1, I1, I4, I4, I8, F2, BF, F4, F8},
    /* u1  */ {U1, I4, U1, I4, I8, F2, BF, F4, F8},
    /* i4  */ {I4, I4, I4, I4, I8, F8, F8, F8, F8},
    /* i8  */ {I8, I8, I8, I8, I8, F8, F8, F8, F8},
    /* f2  */ {F2, F2, F2, F8, F8, F2, F4, F4, F8},
    /* bf16*/ {BF, BF, BF, F8, F8, F4, BF, F4, F8},
    /* f4  */ {F4, F4, F4, F8, F8, F4, F4, F4, F8},
    /* f8  */ {F8, F8, F8, F8, F8, F8, F8, F8, F8},
};

}  // namespace

int64_t itemsize(Dtype dtype) { return info(dtype).itemsize; }
std::string_view dtype_name(Dtype dtype) { return info(dtype).name; }
std::string_view npy_descr(Dtype dtype) { return info(dtype).descr; }

Dtype dtype_from_name(std::string_view name) {
    for (Dtype d : kAllDtypes) {
        const DtypeInfo& i = info(d);
        if (name == i.name || name == i.descr || name == i.code) return d;
        if (name.size() == 3 && (name[0] == '<' || name[0] == '=' || name[0] == '|') && name.substr(1) == i.code)
            return d;
    }
    if (name == "?") return Dtype::kBool;
    if (name == "float" || name == "d" || name == "double") return Dtype::kFloat64;
    if (name == "f") return Dtype::kFloat32;
    if (name == "int" || name == "l" || name == "q") return Dtype::kInt64;
    if (name == "i" || name == "intc") return Dtype::kInt32;
    if (name == "e" || name == "half") return Dtype::kFloat16;
    if (name == "B") return Dtype::kUInt8;
    if (name == "b") return Dtype::kInt8;
    RENSA_THROW(DtypeError, "dtype: unknown dtype name '", name,
                "'; expected one of bool, int8, uint8, int32, int64, float16, bfloat16, float32, float64 "
                "(or a numpy code such as 'f4' / '<f4')");
}

bool is_float(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
        case Dtype::kBFloat16:
        case Dtype::kFloat32:
        case Dtype::kFloat64:
            return true;
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            return false;
    }
    return false;
}

bool is_integral(Dtype dtype) { return !is_float(dtype) && dtype != Dtype::kBool; }
bool is_signed(Dtype dtype) { return dtype != Dtype::kBool && dtype != Dtype::kUInt8; }

Dtype result_type(Dtype a, Dtype b) { return kPromotion[static_cast<int>(a)][static_cast<int>(b)]; }

std::ostream& operator<<(std::ostream& os, Dtype dtype) { return os << dtype_name(dtype); }

}  // namespace rensa
