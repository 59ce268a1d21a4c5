// Read-only memory (Note [Read-only memory] in core/storage.h): every write into an array over
// read-only memory raises ValueError naming the operation and leaves the memory unchanged;
// views keep the flag, copies do not.

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "core/array.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/fused_update.h"
#include "core/ops/indexing.h"
#include "core/ops/update_program.h"

namespace {

using namespace rensa;
using Catch::Matchers::Contains;

// A float32 array of shape {2, 3} over `buffer`, read-only when asked.
Array over(std::vector<float>& buffer, bool read_only) {
    auto storage = std::make_shared<Storage>(buffer.data(), static_cast<int64_t>(buffer.size() * sizeof(float)),
                                             Device::native(), nullptr, read_only);
    return Array(std::move(storage), Shape{2, 3}, Strides{12, 4}, 0, Dtype::kFloat32);
}

const std::vector<float> kValues = {1, 2, 3, 4, 5, 6};

// Runs `expr` twice (it changes nothing): the type, then the message.
#define CHECK_READ_ONLY(expr, operation)                                                                    \
    do {                                                                                                    \
        CHECK_THROWS_AS(expr, ValueError);                                                                  \
        CHECK_THROWS_WITH(expr, Contains(operation) && Contains(": assignment destination is read-only") && \
                                    Contains("shape (2, 3)") && Contains("dtype float32"));                 \
    } while (false)

}  // namespace

TEST_CASE("read-only memory: every write raises ValueError naming the operation", "[core][read_only]") {
    std::vector<float> buffer = kValues;
    const Array a = over(buffer, true);
    CHECK_FALSE(a.writeable());
    const Array other = Array::from_vector<float>({9, 9, 9, 9, 9, 9}, {2, 3});
    CHECK_READ_ONLY(a.fill(Scalar{0.0}), "fill");
    CHECK_READ_ONLY(a.assign(other), "assign");
    CHECK_READ_ONLY(ops::add_inplace(a, other), "add_inplace");
    CHECK_READ_ONLY(ops::multiply_inplace(a, Scalar{2.0}), "multiply_inplace");
    const Array indices = Array::from_vector<int64_t>({0, 1}, {2});
    CHECK_READ_ONLY(ops::scatter_add(a, indices, ops::ones({2, 3}, Dtype::kFloat32), 0), "scatter_add");
    CHECK(buffer == kValues);
}

TEST_CASE("read-only memory: fused updates refuse a read-only param or state", "[core][read_only]") {
    using namespace ops::update_registers;
    // v = v * 0.5 + grad; param -= v
    const auto program = ops::make_update_program(
        "decay", {"v"}, 1,
        {{UpdateOp::kMulAdd, state(0), state(0), scalar(0), kGrad}, {UpdateOp::kSub, kParam, kParam, state(0)}});
    std::vector<float> buffer = kValues;
    std::vector<float> writable = kValues;
    const Array grad = ops::ones({2, 3}, Dtype::kFloat32);
    const Array v = ops::zeros({2, 3}, Dtype::kFloat32);
    CHECK_READ_ONLY(ops::fused_update({.program = program, .param = over(buffer, true), .grad = grad, .states = {v}}),
                    "fused_update(decay): param");
    const Array velocity = over(buffer, true);
    CHECK_READ_ONLY(
        ops::fused_update(
            {.program = program, .param = over(writable, false), .grad = grad, .states = {velocity}, .scalars = {0.5}}),
        "fused_update(decay): state 'v'");
    CHECK(buffer == kValues);
    CHECK(writable == kValues);
}

TEST_CASE("read-only memory: views keep the flag, copies and results are writeable", "[core][read_only]") {
    std::vector<float> buffer = kValues;
    const Array a = over(buffer, true);
    CHECK_FALSE(a.transpose().writeable());
    CHECK_FALSE(a[1].writeable());
    CHECK_FALSE(a.reshape({6}).writeable());
    CHECK_FALSE(a.broadcast_to({4, 2, 3}).writeable());
    const Array copy = a.copy();
    CHECK(copy.writeable());
    copy.fill(Scalar{0.0});
    const Array sum = ops::add(a, a);  // reading is fine
    CHECK(sum.writeable());
    CHECK(sum.to_vector<float>() == std::vector<float>{2, 4, 6, 8, 10, 12});
    std::vector<float> own = kValues;
    const Array w = over(own, false);
    CHECK(w.writeable());
    w.fill(Scalar{0.0});  // the same calls write when the memory allows it
    CHECK(own == std::vector<float>(6, 0.0F));
    CHECK(buffer == kValues);
}
