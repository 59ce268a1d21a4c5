// Array::repr against numpy 2's repr: every expected string below is what numpy 2.4 prints
// for the same array (bfloat16 aside: numpy has no bfloat16, and ml_dtypes prints it oddly).

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "core/array.h"
#include "core/ops/creation.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::make_array;

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("print: dtypes shown unless numpy would infer them", "[print]") {
    CHECK(make_array({1, 2, 3, 4}, {2, 2}, Dtype::kFloat32).repr() ==
          "array([[1., 2.],\n"
          "       [3., 4.]], dtype=float32)");
    CHECK(make_array({1, 2, 3}, {3}, Dtype::kInt32).repr() == "array([1, 2, 3], dtype=int32)");
    CHECK(make_array({1, 2, 3}, {3}, Dtype::kInt64).repr() == "array([1, 2, 3])");
    CHECK(make_array({1, 2}, {2}, Dtype::kFloat64).repr() == "array([1., 2.])");
    CHECK(make_array({-128, 0, 127}, {3}, Dtype::kInt8).repr() == "array([-128,    0,  127], dtype=int8)");
    CHECK(make_array({0, 255}, {2}, Dtype::kUInt8).repr() == "array([  0, 255], dtype=uint8)");
}

TEST_CASE("print: bool", "[print]") {
    CHECK(make_array({1, 0}, {2}, Dtype::kBool).repr() == "array([ True, False])");
    CHECK(make_array({1, 1}, {2}, Dtype::kBool).repr() == "array([ True,  True])");
    CHECK(make_array({0, 0}, {2}, Dtype::kBool).repr() == "array([False, False])");
    CHECK(make_array({1}, {}, Dtype::kBool).repr() == "array(True)");
}

TEST_CASE("print: 0-d arrays", "[print]") {
    CHECK(make_array({3.5}, {}, Dtype::kFloat32).repr() == "array(3.5, dtype=float32)");
    CHECK(make_array({7}, {}, Dtype::kInt64).repr() == "array(7)");
    CHECK(make_array({2}, {}, Dtype::kFloat64).repr() == "array(2.)");
}

TEST_CASE("print: size-0 arrays show their shape unless it is (0,)", "[print]") {
    CHECK(ops::zeros({0, 3}, Dtype::kFloat32).repr() == "array([], shape=(0, 3), dtype=float32)");
    CHECK(ops::zeros({0}, Dtype::kFloat64).repr() == "array([], dtype=float64)");
    CHECK(ops::zeros({0}, Dtype::kInt64).repr() == "array([], dtype=int64)");
    CHECK(ops::zeros({2, 0}, Dtype::kInt64).repr() == "array([], shape=(2, 0), dtype=int64)");
}

TEST_CASE("print: float columns align the decimal point", "[print]") {
    CHECK(make_array({1.5, 2.25}, {2}, Dtype::kFloat64).repr() == "array([1.5 , 2.25])");
    CHECK(make_array({-1.5, 2}, {2}, Dtype::kFloat64).repr() == "array([-1.5,  2. ])");
    CHECK(make_array({-0.0, 1}, {2}, Dtype::kFloat64).repr() == "array([-0.,  1.])");
    CHECK(make_array({1.0 / 3, 2.0 / 3}, {2}, Dtype::kFloat64).repr() == "array([0.33333333, 0.66666667])");
    CHECK(make_array({std::numbers::pi}, {1}, Dtype::kFloat64).repr() == "array([3.14159265])");
    CHECK(make_array({3.14159265358979, 100.25}, {2}, Dtype::kFloat32).repr() ==
          "array([  3.1415927, 100.25     ], dtype=float32)");
}

TEST_CASE("print: shortest digits of the element's own dtype", "[print]") {
    CHECK(make_array({0.1}, {1}, Dtype::kFloat32).repr() == "array([0.1], dtype=float32)");
    CHECK(make_array({0.1, 1.0 / 3, -2}, {3}, Dtype::kFloat16).repr() ==
          "array([ 0.1   ,  0.3333, -2.    ], dtype=float16)");
    // bfloat16(0.1) = 0.10009765625 reads back from "0.1"; bfloat16(1/3) = 0.333984375 needs "0.334".
    CHECK(make_array({0.1, 1.0 / 3, 3}, {3}, Dtype::kBFloat16).repr() ==
          "array([0.1  , 0.334, 3.   ], dtype=bfloat16)");
}

TEST_CASE("print: nan and inf", "[print]") {
    CHECK(make_array({kNan, 1, -kInf, kInf}, {4}, Dtype::kFloat64).repr() == "array([ nan,   1., -inf,  inf])");
    CHECK(make_array({kNan, kNan}, {2}, Dtype::kFloat64).repr() == "array([nan, nan])");
    CHECK(make_array({kInf}, {1}, Dtype::kFloat64).repr() == "array([inf])");
    CHECK(make_array({1e-5, kNan, -kInf}, {3}, Dtype::kFloat64).repr() == "array([1.e-05,    nan,   -inf])");
}

TEST_CASE("print: scientific notation when magnitudes span too much", "[print]") {
    CHECK(make_array({1e-5, 1.5}, {2}, Dtype::kFloat64).repr() == "array([1.0e-05, 1.5e+00])");
    CHECK(make_array({1e10}, {1}, Dtype::kFloat64).repr() == "array([1.e+10])");
    CHECK(make_array({1e8}, {1}, Dtype::kFloat64).repr() == "array([1.e+08])");
    CHECK(make_array({1e-100, 1}, {2}, Dtype::kFloat64).repr() == "array([1.e-100, 1.e+000])");
    CHECK(make_array({1, 1001}, {2}, Dtype::kFloat64).repr() == "array([1.000e+00, 1.001e+03])");
    CHECK(make_array({12345678.5, 1}, {2}, Dtype::kFloat64).repr() == "array([1.23456785e+07, 1.00000000e+00])");
}

TEST_CASE("print: long rows wrap at 75 columns", "[print]") {
    CHECK(ops::arange(30).repr() ==
          "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n"
          "       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])");
    CHECK(ops::linspace(0, 1, 20).repr() ==
          "array([0.        , 0.05263158, 0.10526316, 0.15789474, 0.21052632,\n"
          "       0.26315789, 0.31578947, 0.36842105, 0.42105263, 0.47368421,\n"
          "       0.52631579, 0.57894737, 0.63157895, 0.68421053, 0.73684211,\n"
          "       0.78947368, 0.84210526, 0.89473684, 0.94736842, 1.        ])");
    CHECK(ops::arange(25, Dtype::kInt32).repr() ==
          "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n"
          "       17, 18, 19, 20, 21, 22, 23, 24], dtype=int32)");
}

TEST_CASE("print: nested and non-contiguous arrays", "[print]") {
    CHECK(ops::arange(24, Dtype::kInt32).reshape({2, 3, 4}).repr() ==
          "array([[[ 0,  1,  2,  3],\n"
          "        [ 4,  5,  6,  7],\n"
          "        [ 8,  9, 10, 11]],\n"
          "\n"
          "       [[12, 13, 14, 15],\n"
          "        [16, 17, 18, 19],\n"
          "        [20, 21, 22, 23]]], dtype=int32)");
    CHECK(ops::arange(6, Dtype::kFloat64).reshape({2, 3}).transpose().repr() ==
          "array([[0., 3.],\n"
          "       [1., 4.],\n"
          "       [2., 5.]])");
}

TEST_CASE("print: more than 1000 elements are summarised", "[print]") {
    CHECK(ops::arange(2000).repr() == "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))");
    CHECK(ops::arange(2000, Dtype::kFloat32).reshape({40, 50}).repr() ==
          "array([[0.000e+00, 1.000e+00, 2.000e+00, ..., 4.700e+01, 4.800e+01,\n"
          "        4.900e+01],\n"
          "       [5.000e+01, 5.100e+01, 5.200e+01, ..., 9.700e+01, 9.800e+01,\n"
          "        9.900e+01],\n"
          "       [1.000e+02, 1.010e+02, 1.020e+02, ..., 1.470e+02, 1.480e+02,\n"
          "        1.490e+02],\n"
          "       ...,\n"
          "       [1.850e+03, 1.851e+03, 1.852e+03, ..., 1.897e+03, 1.898e+03,\n"
          "        1.899e+03],\n"
          "       [1.900e+03, 1.901e+03, 1.902e+03, ..., 1.947e+03, 1.948e+03,\n"
          "        1.949e+03],\n"
          "       [1.950e+03, 1.951e+03, 1.952e+03, ..., 1.997e+03, 1.998e+03,\n"
          "        1.999e+03]], shape=(40, 50), dtype=float32)");
    CHECK(ops::arange(1331).reshape({11, 11, 11}).repr() ==
          "array([[[   0,    1,    2, ...,    8,    9,   10],\n"
          "        [  11,   12,   13, ...,   19,   20,   21],\n"
          "        [  22,   23,   24, ...,   30,   31,   32],\n"
          "        ...,\n"
          "        [  88,   89,   90, ...,   96,   97,   98],\n"
          "        [  99,  100,  101, ...,  107,  108,  109],\n"
          "        [ 110,  111,  112, ...,  118,  119,  120]],\n"
          "\n"
          "       [[ 121,  122,  123, ...,  129,  130,  131],\n"
          "        [ 132,  133,  134, ...,  140,  141,  142],\n"
          "        [ 143,  144,  145, ...,  151,  152,  153],\n"
          "        ...,\n"
          "        [ 209,  210,  211, ...,  217,  218,  219],\n"
          "        [ 220,  221,  222, ...,  228,  229,  230],\n"
          "        [ 231,  232,  233, ...,  239,  240,  241]],\n"
          "\n"
          "       [[ 242,  243,  244, ...,  250,  251,  252],\n"
          "        [ 253,  254,  255, ...,  261,  262,  263],\n"
          "        [ 264,  265,  266, ...,  272,  273,  274],\n"
          "        ...,\n"
          "        [ 330,  331,  332, ...,  338,  339,  340],\n"
          "        [ 341,  342,  343, ...,  349,  350,  351],\n"
          "        [ 352,  353,  354, ...,  360,  361,  362]],\n"
          "\n"
          "       ...,\n"
          "\n"
          "       [[ 968,  969,  970, ...,  976,  977,  978],\n"
          "        [ 979,  980,  981, ...,  987,  988,  989],\n"
          "        [ 990,  991,  992, ...,  998,  999, 1000],\n"
          "        ...,\n"
          "        [1056, 1057, 1058, ..., 1064, 1065, 1066],\n"
          "        [1067, 1068, 1069, ..., 1075, 1076, 1077],\n"
          "        [1078, 1079, 1080, ..., 1086, 1087, 1088]],\n"
          "\n"
          "       [[1089, 1090, 1091, ..., 1097, 1098, 1099],\n"
          "        [1100, 1101, 1102, ..., 1108, 1109, 1110],\n"
          "        [1111, 1112, 1113, ..., 1119, 1120, 1121],\n"
          "        ...,\n"
          "        [1177, 1178, 1179, ..., 1185, 1186, 1187],\n"
          "        [1188, 1189, 1190, ..., 1196, 1197, 1198],\n"
          "        [1199, 1200, 1201, ..., 1207, 1208, 1209]],\n"
          "\n"
          "       [[1210, 1211, 1212, ..., 1218, 1219, 1220],\n"
          "        [1221, 1222, 1223, ..., 1229, 1230, 1231],\n"
          "        [1232, 1233, 1234, ..., 1240, 1241, 1242],\n"
          "        ...,\n"
          "        [1298, 1299, 1300, ..., 1306, 1307, 1308],\n"
          "        [1309, 1310, 1311, ..., 1317, 1318, 1319],\n"
          "        [1320, 1321, 1322, ..., 1328, 1329, 1330]]], shape=(11, 11, 11))");
}

TEST_CASE("print: only the shown elements choose the format", "[print]") {
    const Array a = ops::zeros({2000}, Dtype::kFloat64);
    a.index({int64_t{1000}}).fill(1e10);  // hidden by "...": numpy stays positional
    CHECK(a.repr() == "array([0., 0., 0., ..., 0., 0., 0.], shape=(2000,))");
}

TEST_CASE("print: summarising some axes only, views and extras on their own line", "[print]") {
    CHECK(ops::arange(4000).reshape({2000, 2}).repr() ==
          "array([[   0,    1],\n"
          "       [   2,    3],\n"
          "       [   4,    5],\n"
          "       ...,\n"
          "       [3994, 3995],\n"
          "       [3996, 3997],\n"
          "       [3998, 3999]], shape=(2000, 2))");
    CHECK(ops::arange(1500, Dtype::kInt32).reshape({3, 500}).repr() ==
          "array([[   0,    1,    2, ...,  497,  498,  499],\n"
          "       [ 500,  501,  502, ...,  997,  998,  999],\n"
          "       [1000, 1001, 1002, ..., 1497, 1498, 1499]],\n"
          "      shape=(3, 500), dtype=int32)");
    CHECK(ops::arange(1500, Dtype::kFloat64).reshape({500, 3}).transpose().repr() ==
          "array([[0.000e+00, 3.000e+00, 6.000e+00, ..., 1.491e+03, 1.494e+03,\n"
          "        1.497e+03],\n"
          "       [1.000e+00, 4.000e+00, 7.000e+00, ..., 1.492e+03, 1.495e+03,\n"
          "        1.498e+03],\n"
          "       [2.000e+00, 5.000e+00, 8.000e+00, ..., 1.493e+03, 1.496e+03,\n"
          "        1.499e+03]], shape=(3, 500))");
}

TEST_CASE("print: operator<< writes the repr", "[print]") {
    const Array a = make_array({1, 2}, {2}, Dtype::kFloat32);
    std::ostringstream os;
    os << a;
    CHECK(os.str() == a.repr());
    CHECK(Array().repr() == "array(undefined)");
}
