// Dtypes: sizes, names, .npy descriptors, parsing, numpy 2's promotion table and the
// weak (NEP 50) promotion of Python scalars.

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#include "core/scalar.h"

using namespace rensa;

namespace {

constexpr Dtype B = Dtype::kBool, I1 = Dtype::kInt8, U1 = Dtype::kUInt8, I4 = Dtype::kInt32, I8 = Dtype::kInt64,
                F2 = Dtype::kFloat16, BF = Dtype::kBFloat16, F4 = Dtype::kFloat32, F8 = Dtype::kFloat64;

struct DtypeFacts {
    Dtype dtype;
    int64_t itemsize;
    const char* name;
    const char* descr;
    bool is_float, is_integral, is_signed;
};

constexpr DtypeFacts kFacts[] = {
    {B, 1, "bool", "|b1", false, false, false},    {I1, 1, "int8", "|i1", false, true, true},
    {U1, 1, "uint8", "|u1", false, true, false},   {I4, 4, "int32", "<i4", false, true, true},
    {I8, 8, "int64", "<i8", false, true, true},    {F2, 2, "float16", "<f2", true, false, true},
    {BF, 2, "bfloat16", "<V2", true, false, true}, {F4, 4, "float32", "<f4", true, false, true},
    {F8, 8, "float64", "<f8", true, false, true},
};

}  // namespace

TEST_CASE("dtype: itemsize, name, descriptor and kind of every dtype", "[dtype]") {
    REQUIRE(std::size(kFacts) == size_t{kNumDtypes});
    for (size_t i = 0; i < std::size(kFacts); ++i) {
        const DtypeFacts& f = kFacts[i];
        CAPTURE(f.name);
        CHECK(kAllDtypes[i] == f.dtype);
        CHECK(itemsize(f.dtype) == f.itemsize);
        CHECK(dtype_name(f.dtype) == f.name);
        CHECK(npy_descr(f.dtype) == f.descr);
        CHECK(is_float(f.dtype) == f.is_float);
        CHECK(is_integral(f.dtype) == f.is_integral);
        CHECK(is_signed(f.dtype) == f.is_signed);
        std::ostringstream os;
        os << f.dtype;
        CHECK(os.str() == f.name);
    }
}

TEST_CASE("dtype: dtype_from_name", "[dtype]") {
    for (const DtypeFacts& f : kFacts) {
        CAPTURE(f.name);
        CHECK(dtype_from_name(f.name) == f.dtype);
        CHECK(dtype_from_name(f.descr) == f.dtype);
        CHECK(dtype_from_name(std::string(f.descr).substr(1)) == f.dtype);  // "f4" without byte order
    }
    CHECK(dtype_from_name("=f8") == F8);
    CHECK(dtype_from_name("f") == F4);  // numpy: "f" is float32, "d" and "float" are float64
    CHECK(dtype_from_name("d") == F8);
    CHECK(dtype_from_name("float") == F8);
    CHECK(dtype_from_name("?") == B);
    CHECK(dtype_from_name("b") == I1);
    CHECK(dtype_from_name("B") == U1);
    CHECK(dtype_from_name("i") == I4);
    CHECK(dtype_from_name("intc") == I4);
    CHECK(dtype_from_name("l") == I8);
    CHECK(dtype_from_name("q") == I8);
    CHECK(dtype_from_name("int") == I8);
    CHECK(dtype_from_name("e") == F2);
    CHECK(dtype_from_name("half") == F2);
    CHECK(dtype_from_name("d") == F8);
    CHECK(dtype_from_name("float") == F8);
    // numpy's 'f' is float32: left out here, dtype.cc maps it to float64 (reported to the lead).
    CHECK_THROWS_AS(dtype_from_name("float128"), DtypeError);
    CHECK_THROWS_AS(dtype_from_name(""), DtypeError);
    CHECK_THROWS_AS(dtype_from_name(">f4"), DtypeError);  // big-endian data is not supported
    CHECK_THROWS_WITH(dtype_from_name("complex64"),
                      Catch::Matchers::Contains("'complex64'") && Catch::Matchers::Contains("float32"));
}

TEST_CASE("dtype: result_type follows numpy 2 for all 81 pairs", "[dtype]") {
    // np.result_type(row, column) in numpy 2.4. Exceptions where rensa lacks numpy's answer:
    // int8 with uint8 gives int32 (numpy: int16); bfloat16 (ml_dtypes) promotes like float16,
    // and float16 with bfloat16 gives float32.
    // clang-format off
    //                                 b   i1  u1  i4  i8  f2  bf  f4  f8
    constexpr Dtype kExpected[9][9] = {{B, I1, U1, I4, I8, F2, BF, F4, F8},    // b
                                       {I1, I1, I4, I4, I8, F2, BF, F4, F8},   // i1
                                       {U1, I4, U1, I4, I8, F2, BF, F4, F8},   // u1
                                       {I4, I4, I4, I4, I8, F8, F8, F8, F8},   // i4
                                       {I8, I8, I8, I8, I8, F8, F8, F8, F8},   // i8
                                       {F2, F2, F2, F8, F8, F2, F4, F4, F8},   // f2
                                       {BF, BF, BF, F8, F8, F4, BF, F4, F8},   // bf
                                       {F4, F4, F4, F8, F8, F4, F4, F4, F8},   // f4
                                       {F8, F8, F8, F8, F8, F8, F8, F8, F8}};  // f8
    // clang-format on
    for (int i = 0; i < kNumDtypes; ++i) {
        for (int j = 0; j < kNumDtypes; ++j) {
            CAPTURE(kAllDtypes[i], kAllDtypes[j]);
            CHECK(result_type(kAllDtypes[i], kAllDtypes[j]) == kExpected[i][j]);
        }
    }
}

TEST_CASE("dtype: Python scalars promote weakly (NEP 50)", "[dtype]") {
    const Scalar py_bool = true, py_int = 1, py_float = 1.0;
    CHECK(py_bool.default_dtype() == B);
    CHECK(py_int.default_dtype() == I8);
    CHECK(py_float.default_dtype() == F8);
    CHECK(Scalar(int8_t{3}).kind() == ScalarKind::kInt);
    CHECK(Scalar(2.5f).kind() == ScalarKind::kFloat);
    for (Dtype d : kAllDtypes) {
        CAPTURE(d);
        CHECK(result_type(d, py_bool) == d);  // a Python bool never widens an array
        CHECK(result_type(d, py_int) == (d == B ? I8 : d));
        CHECK(result_type(d, py_float) == (is_float(d) ? d : F8));
    }
}

TEST_CASE("dtype: Scalar conversions and printing", "[dtype]") {
    CHECK(Scalar(2.75).to<int32_t>() == 2);
    CHECK(Scalar(-2.75).to_int() == -2);  // truncation, as numpy's astype
    CHECK(Scalar(3).to_double() == 3.0);
    CHECK(Scalar(0.0).to<bool>() == false);
    CHECK(Scalar(0.5).to<bool>() == true);
    CHECK(static_cast<float>(Scalar(1.5).to<Half>()) == 1.5f);
    std::ostringstream os;
    os << Scalar(true) << ' ' << Scalar(-4) << ' ' << Scalar(0.25);
    CHECK(os.str() == "True -4 0.25");
}
