// The generic fused update (ops::fused_update, Note [Update programs] in core/kernels.h):
// every instruction with register and scalar operands against the same expression computed
// here in the compute type, for float16/bfloat16/float32/float64, every layout, sizes that
// span several blocks and threads; programs with temporaries and states; the errors of
// make_update_program and fused_update.

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::ops::update_registers;
using testing::Layout;

namespace {

// Each op as core/kernels.h defines it, in the compute type C, one rounding per operation:
// the product is stored (volatile) so this file's own FMA contraction cannot fuse it.
template <class C>
C reference_op(UpdateOp op, C a, C b, C c) {
    volatile C product = a * b;
    switch (op) {
        case UpdateOp::kCopy:
            return a;
        case UpdateOp::kAdd:
            return a + b;
        case UpdateOp::kSub:
            return a - b;
        case UpdateOp::kMul:
            return a * b;
        case UpdateOp::kDiv:
            return a / b;
        case UpdateOp::kMin:
            return b < a ? b : a;
        case UpdateOp::kMax:
            return a < b ? b : a;
        case UpdateOp::kSqrt:
            return std::sqrt(a);
        case UpdateOp::kMulAdd:
            return product + c;
        case UpdateOp::kMulSub:
            return product - c;
        case UpdateOp::kSubMul:
            return c - product;
    }
    return C{0};
}

constexpr UpdateOp kAllOps[] = {UpdateOp::kCopy,   UpdateOp::kAdd,    UpdateOp::kSub,   UpdateOp::kMul,
                                UpdateOp::kDiv,    UpdateOp::kMin,    UpdateOp::kMax,   UpdateOp::kSqrt,
                                UpdateOp::kMulAdd, UpdateOp::kMulSub, UpdateOp::kSubMul};

std::vector<double> values(int64_t n, double phase) {
    std::vector<double> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.5 + std::sin(0.37 * static_cast<double>(i) + phase);
    return v;
}

// param = op(a, b, c) with the operands `ops` (registers grad, state 0, state 1 or scalars
// 0, 1), checked against reference_op on the arrays' values in the compute type.
template <class C>
void check_op(UpdateOp op, const uint8_t (&operands)[3], Dtype dtype, Layout layout, const Shape& shape) {
    const int64_t n = shape_size(shape);
    const auto program =
        ops::make_update_program("probe", {"s0", "s1"}, 2, {{op, kParam, operands[0], operands[1], operands[2]}});
    const double scalars[2] = {0.75, 1.25};
    const std::vector<double> pv = values(n, 0.0), gv = values(n, 1.0), s0v = values(n, 2.0), s1v = values(n, 3.0);
    const Array param = testing::make_array(pv, shape, dtype, layout);
    const Array grad = testing::make_array(gv, shape, dtype, layout);
    const Array s0 = testing::make_array(s0v, shape, dtype, layout),
                s1 = testing::make_array(s1v, shape, dtype, layout);
    // The inputs as the kernel sees them: rounded to dtype, then in C.
    const std::vector<double> g = testing::to_doubles(grad), a0 = testing::to_doubles(s0), a1 = testing::to_doubles(s1);
    ops::fused_update({.program = program, .param = param, .grad = grad, .states = {s0, s1}, .scalars = {0.75, 1.25}});
    std::vector<double> expected(static_cast<size_t>(n));
    for (size_t i = 0; i < expected.size(); ++i) {
        const auto value = [&](uint8_t r) {
            if (r >= kUpdateScalar0) return static_cast<C>(scalars[r - kUpdateScalar0]);
            return static_cast<C>(r == kGrad ? g[i] : r == state(0) ? a0[i] : a1[i]);
        };
        expected[i] =
            static_cast<double>(reference_op<C>(op, value(operands[0]), value(operands[1]), value(operands[2])));
    }
    const Array expected_array = Array::from_vector(expected, shape).astype(dtype);
    CHECK(testing::to_doubles(param) == testing::to_doubles(expected_array));
    CHECK(testing::to_doubles(s0) == a0);  // read, not written: unchanged
}

void check_every_op(Dtype dtype, Layout layout, const Shape& shape) {
    const uint8_t registers[3] = {kGrad, state(0), state(1)};
    const uint8_t mixed[3] = {scalar(0), kGrad, scalar(1)};
    const uint8_t mixed2[3] = {state(1), scalar(1), kGrad};
    for (const UpdateOp op : kAllOps) {
        for (const auto* operands : {&registers, &mixed, &mixed2}) {
            INFO("op " << int{static_cast<uint8_t>(op)} << " " << dtype_name(dtype) << " "
                       << testing::layout_name(layout) << " " << shape << " operands " << int{(*operands)[0]} << ","
                       << int{(*operands)[1]} << "," << int{(*operands)[2]});
            if (dtype == Dtype::kFloat64) {
                check_op<double>(op, *operands, dtype, layout, shape);
            } else {
                check_op<float>(op, *operands, dtype, layout, shape);
            }
        }
    }
}

// A momentum rule written with temporaries: t = lr * grad; v = momentum * v - t; param += v.
std::shared_ptr<const UpdateProgram> momentum_program() {
    return ops::make_update_program("momentum", {"v"}, 2,
                                    {{UpdateOp::kMul, temp(0), scalar(0), kGrad},
                                     {UpdateOp::kMulSub, state(0), scalar(1), state(0), temp(0)},
                                     {UpdateOp::kAdd, kParam, kParam, state(0)}});
}

}  // namespace

TEST_CASE("fused_update: every op with registers and scalars, all float dtypes and layouts", "[core][ops][fused]") {
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const Layout layout : testing::kAllLayouts) check_every_op(dtype, layout, {5, 7});
    }
}

TEST_CASE("fused_update: arrays spanning several blocks and threads", "[core][ops][fused]") {
    check_every_op(Dtype::kFloat32, Layout::kContiguous, {300, 257});
    check_every_op(Dtype::kFloat16, Layout::kStrided, {70001});
    check_every_op(Dtype::kFloat64, Layout::kContiguous, {1025});
}

TEST_CASE("fused_update: a program with temporaries updates param and state", "[core][ops][fused]") {
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        const Shape shape{2049};
        const std::vector<double> p0 = values(2049, 0.0), g0 = values(2049, 1.0), v0 = values(2049, 2.0);
        const Array p = testing::make_array(p0, shape, dtype), v = testing::make_array(v0, shape, dtype);
        const Array g = testing::make_array(g0, shape, dtype);
        const std::vector<double> pr = testing::to_doubles(p), gr = testing::to_doubles(g), vr = testing::to_doubles(v);
        ops::fused_update({.program = momentum_program(), .param = p, .grad = g, .states = {v}, .scalars = {0.1, 0.9}});
        std::vector<double> pe(pr.size()), ve(pr.size());
        for (size_t i = 0; i < pr.size(); ++i) {
            ve[i] = 0.9 * vr[i] - 0.1 * gr[i];
            pe[i] = pr[i] + ve[i];
        }
        INFO(dtype_name(dtype));
        testing::check_allclose(v, ve, shape, testing::tolerance(dtype));
        testing::check_allclose(p, pe, shape, testing::tolerance(dtype));
    }
}

TEST_CASE("fused_update: size-0 arrays are a no-op", "[core][ops][fused]") {
    const Array p = ops::zeros({0, 3});
    ops::fused_update({.program = momentum_program(), .param = p, .grad = p, .states = {p}});
    CHECK(p.size() == 0);
}

TEST_CASE("fused_update: make_update_program rejects bad programs", "[core][ops][fused]") {
    using Catch::Matchers::Contains;
    const auto bad = [](std::vector<std::string> states, int n_scalars, std::vector<UpdateInstruction> code) {
        return [=] { (void)ops::make_update_program("bad", states, n_scalars, code); };
    };
    CHECK_THROWS_WITH(bad({}, 0, {{UpdateOp::kAdd, kParam, kParam, temp(0)}})(),
                      Contains("'bad'") && Contains("reads temporary 0 before"));
    CHECK_THROWS_WITH(bad({}, 0, {{UpdateOp::kCopy, kGrad, kParam}})(), Contains("writes register 1"));
    CHECK_THROWS_WITH(bad({}, 1, {{UpdateOp::kMul, kParam, kParam, scalar(1)}})(), Contains("reads scalar 1"));
    CHECK_THROWS_WITH(bad({"v"}, 0, {{UpdateOp::kCopy, kParam, state(1)}})(), Contains("reads register 3"));
    CHECK_THROWS_WITH(bad({"a", "b", "c", "d"}, 0, {})(), Contains("4 states"));
    CHECK_THROWS_WITH(bad({}, kUpdateMaxScalars + 1, {})(), Contains("scalars"));
    CHECK_THROWS_WITH(bad({}, 0, std::vector<UpdateInstruction>(kUpdateMaxInstructions + 1))(),
                      Contains("instructions"));
    CHECK_THROWS_WITH(bad({}, 0, {{static_cast<UpdateOp>(200), kParam, kParam}})(), Contains("unknown op"));
    CHECK_THROWS_AS(bad({}, 0, {{UpdateOp::kCopy, kGrad, kParam}})(), ValueError);
}

TEST_CASE("fused_update: errors name the program and the array", "[core][ops][fused]") {
    using Catch::Matchers::Contains;
    const Array p = ops::zeros({2, 3});
    const Array v = ops::zeros({2, 3});
    FusedUpdateArgs a{.program = momentum_program(), .param = p, .grad = ops::zeros({3, 2}), .states = {v}};
    CHECK_THROWS_AS(ops::fused_update(a), DimensionError);
    CHECK_THROWS_WITH(ops::fused_update(a), Contains("fused_update(momentum)") && Contains("grad.shape"));
    a.grad = ops::zeros({2, 3}, Dtype::kFloat64);
    CHECK_THROWS_AS(ops::fused_update(a), DtypeError);
    CHECK_THROWS_WITH(ops::fused_update(a), Contains("grad.dtype=float64"));
    a.grad = ops::zeros({2, 3});
    a.states[0] = Array{};
    CHECK_THROWS_AS(ops::fused_update(a), ValueError);
    CHECK_THROWS_WITH(ops::fused_update(a), Contains("state 'v' is undefined"));
    a.states[0] = ops::zeros({6});
    CHECK_THROWS_AS(ops::fused_update(a), DimensionError);
    CHECK_THROWS_WITH(ops::fused_update(a), Contains("state 'v'.shape"));
    a.param = ops::zeros({2, 3}, Dtype::kInt32);
    CHECK_THROWS_AS(ops::fused_update(a), DtypeError);
    CHECK_THROWS_AS(ops::fused_update({.program = momentum_program()}), ValueError);
    CHECK_THROWS_WITH(ops::fused_update({.program = momentum_program()}), Contains("param is undefined"));
    CHECK_THROWS_WITH(ops::fused_update({.program = nullptr, .param = p, .grad = p}), Contains("program is not set"));
}
