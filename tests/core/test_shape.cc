// Shapes, strides, axes, broadcasting, SmallVector's capacity, devices and DeviceScope.

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/device.h"
#include "core/error.h"
#include "core/shape.h"

using namespace rensa;
using Catch::Matchers::Contains;

namespace {
template <class V>
std::string str(const V& v) {
    std::ostringstream os;
    os << v;
    return os.str();
}
}  // namespace

TEST_CASE("shape: shape_size", "[shape]") {
    CHECK(shape_size({2, 3, 4}) == 24);
    CHECK(shape_size({}) == 1);
    CHECK(shape_size({0, 5}) == 0);
    CHECK(shape_size({int64_t{1} << 31, int64_t{1} << 31}) == int64_t{1} << 62);
    CHECK_THROWS_AS(shape_size({2, -1}), ValueError);
    CHECK_THROWS_AS(shape_size({0, -1}), ValueError);  // negative even after a zero
    CHECK_THROWS_WITH(shape_size({3, -2}), Contains("(3, -2)") && Contains("negative"));
    CHECK_THROWS_AS(shape_size({int64_t{1} << 32, int64_t{1} << 32}), ValueError);
    CHECK_THROWS_AS(shape_size({std::numeric_limits<int64_t>::max(), 2}), ValueError);
}

TEST_CASE("shape: contiguous_strides", "[shape]") {
    CHECK(contiguous_strides({2, 3, 4}, 4) == Strides{48, 16, 4});
    CHECK(contiguous_strides({5}, 2) == Strides{2});
    CHECK(contiguous_strides({}, 8) == Strides{});
    CHECK(contiguous_strides({3, 1, 2}, 8) == Strides{16, 16, 8});
}

TEST_CASE("shape: normalize_axis and normalize_axes", "[shape]") {
    CHECK(normalize_axis(0, 3, "sum") == 0);
    CHECK(normalize_axis(-1, 3, "sum") == 2);
    CHECK(normalize_axis(-3, 3, "sum") == 0);
    CHECK_THROWS_AS(normalize_axis(3, 3, "sum"), DimensionError);
    CHECK_THROWS_AS(normalize_axis(-4, 3, "sum"), DimensionError);
    CHECK_THROWS_AS(normalize_axis(0, 0, "sum"), DimensionError);
    CHECK_THROWS_WITH(normalize_axis(5, 2, "mean"), Contains("mean") && Contains("axis 5") && Contains("dimension 2"));
    CHECK(normalize_axes({0, -1}, 3, "sum") == Axes{0, 2});
    CHECK(normalize_axes({2, 0}, 3, "sum") == Axes{2, 0});  // order kept
    CHECK(normalize_axes({}, 3, "sum") == Axes{});
    CHECK_THROWS_AS(normalize_axes({1, -2}, 3, "sum"), DimensionError);
    CHECK_THROWS_WITH(normalize_axes({0, 0}, 2, "max"), Contains("max") && Contains("repeated axis"));
    CHECK_THROWS_AS(normalize_axes({0, 3}, 3, "sum"), DimensionError);
    CHECK(all_axes(3) == Axes{0, 1, 2});
    CHECK(all_axes(0) == Axes{});
}

TEST_CASE("shape: broadcast_shapes", "[shape]") {
    CHECK(broadcast_shapes({3, 1}, {1, 4}, "add") == Shape{3, 4});
    CHECK(broadcast_shapes({}, {2, 3}, "add") == Shape{2, 3});
    CHECK(broadcast_shapes({5, 1, 4}, {3, 1}, "add") == Shape{5, 3, 4});
    CHECK(broadcast_shapes({0}, {1}, "add") == Shape{0});
    CHECK(broadcast_shapes({2, 0}, {2, 1}, "add") == Shape{2, 0});
    CHECK(broadcast_shapes({4}, {4}, "add") == Shape{4});
    CHECK_THROWS_AS(broadcast_shapes({0}, {3}, "add"), DimensionError);
    CHECK_THROWS_WITH(broadcast_shapes({3, 4}, {5}, "add"), "add: shapes (3, 4) and (5,) cannot be broadcast");
    CHECK_THROWS_WITH(broadcast_shapes({2}, {3, 3}, "where"), "where: shapes (2,) and (3, 3) cannot be broadcast");
}

TEST_CASE("shape: printing like Python tuples", "[shape]") {
    CHECK(str(Shape{3, 4}) == "(3, 4)");
    CHECK(str(Shape{5}) == "(5,)");
    CHECK(str(Shape{}) == "()");
    CHECK(str(Axes{0, -1}) == "(0, -1)");
}

TEST_CASE("shape: SmallVector holds at most 8 dimensions", "[shape]") {
    Shape s{1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(s.size() == kMaxNdim);
    CHECK_THROWS_AS(s.push_back(9), DimensionError);
    CHECK_THROWS_AS(s.insert(0, 9), DimensionError);
    CHECK_THROWS_AS(s.resize(9), DimensionError);
    CHECK_THROWS_AS((Shape{1, 2, 3, 4, 5, 6, 7, 8, 9}), DimensionError);
    CHECK_THROWS_AS(Shape(9, 1), DimensionError);
    CHECK_THROWS_WITH(Axes(10, 0), Contains("at most 8") && Contains("10"));
    CHECK(s.size() == kMaxNdim);  // failed growth leaves it unchanged
}

TEST_CASE("shape: SmallVector operations", "[shape]") {
    Shape s{1, 2, 3};
    s.insert(1, 9);
    CHECK(s == Shape{1, 9, 2, 3});
    s.erase(0);
    CHECK(s == Shape{9, 2, 3});
    s.push_back(4);
    CHECK(s.back() == 4);
    s.pop_back();
    s.resize(5, 7);
    CHECK(s == Shape{9, 2, 3, 7, 7});
    CHECK(Shape(2, 6) == Shape{6, 6});
    CHECK(Shape{1, 2} != Shape{1, 2, 3});
    s.clear();
    CHECK(s.empty());
}

TEST_CASE("shape: Device::parse and printing", "[shape]") {
    CHECK(Device::parse("native") == Device::native());
    CHECK(Device::parse("native:0") == Device::native());
    CHECK(Device::parse("cuda") == Device::cuda(0));
    CHECK(Device::parse("cuda:1") == Device::cuda(1));
    CHECK(Device::parse("cuda:12").index == 12);
    CHECK(Device::cuda(1).str() == "cuda:1");
    CHECK(str(Device::native()) == "native:0");
    CHECK(device_kind_name(DeviceKind::kCuda) == "cuda");
    for (const char* bad : {"gpu", "", ":0", "cuda:", "cuda:-1", "cuda:x", "native:1a", "CUDA:0", "cuda:1:2"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(Device::parse(bad), DeviceError);
    }
    CHECK_THROWS_WITH(Device::parse("tpu:0"), Contains("'tpu:0'"));
}

TEST_CASE("shape: DeviceScope sets and restores the default device", "[shape]") {
    REQUIRE(default_device() == Device::native());
    {
        const DeviceScope outer(Device::cuda(1));
        CHECK(default_device() == Device::cuda(1));
        {
            const DeviceScope inner(Device::cuda(0));
            CHECK(default_device() == Device::cuda(0));
        }
        CHECK(default_device() == Device::cuda(1));
        Device seen_by_other_thread = Device::cuda(7);
        std::thread([&] { seen_by_other_thread = default_device(); }).join();
        CHECK(seen_by_other_thread == Device::native());  // the default is per thread
    }
    CHECK(default_device() == Device::native());
    try {
        const DeviceScope scope(Device::cuda(2));
        throw std::runtime_error("boom");
    } catch (const std::runtime_error&) {
    }
    CHECK(default_device() == Device::native());
}
