// oneDNN convolutions (float32 and bfloat16). Note [oneDNN plans]: a Plan is one convolution
// primitive whose operands oneDNN lays out as it likes (format_tag::any, usually
// channel-blocked), plus the reorders between those layouts and Chainer's plain ones. Plans
// are built once per problem (shapes, stride, pad, dilate, groups, direction, precision,
// layout) and cached; a problem oneDNN refuses caches an empty plan so the caller's other
// path takes it from then on.
//
// Note [oneDNN bfloat16]: bfloat16 convolutions give oneDNN bfloat16 src, weights, dst and
// diff_dst; it accumulates in float32 (avx512_core_bf16's vdpbf16ps, or its emulation on
// plain avx512_core). The bias and the backward-weights outputs (diff_weights, diff_bias)
// are float32: the bias is small, and a weight gradient summed over the batch in float32
// and rounded once by the caller keeps its low bits. A plan whose implementation is one of
// oneDNN's reference loops ("ref:...") is refused for bfloat16: converting to float32 and
// running the float32 jit kernels is many times faster than those loops.

#include "core/native/conv_dnnl.h"

#ifdef RENSA_WITH_DNNL

#include "core/array.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rensa::native {
namespace {

using dnnl::memory;
using Dims = memory::dims;

dnnl::engine& cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

using DataType = memory::data_type;
constexpr DataType kF32 = DataType::f32;

memory::desc plain(const Dims& dims, DataType type) {
    Dims strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
    return {dims, type, strides};
}
// The layout the primitive is asked for: oneDNN's choice or Chainer's plain one.
memory::desc inner_desc(const Dims& dims, DataType type, DnnlLayout layout) {
    return layout == DnnlLayout::kAny ? memory::desc(dims, type, memory::format_tag::any) : plain(dims, type);
}

Dims with_spatial(Dims head, const int64_t (&tail)[kWindowDims], int nd) {
    for (int i = 3 - nd; i < 3; ++i) head.push_back(tail[i]);
    return head;
}

// The dims oneDNN describes the problem with (weights carry the group axis when grouped).
// type is the element type of src, weights, dst and their gradients (Note [oneDNN bfloat16]).
struct Problem {
    Dims src, weights, bias, dst, strides, dilates, pad_l, pad_r;
    DataType type;
    DnnlLayout layout;
    memory::desc inner(const Dims& dims) const { return inner_desc(dims, type, layout); }
    memory::desc user(const Dims& dims) const { return plain(dims, type); }
};
Problem problem(const WindowGeometry& g, DnnlPrecision precision, DnnlLayout layout) {
    Problem p;
    p.type = precision == DnnlPrecision::kBFloat16 ? DataType::bf16 : kF32;
    p.layout = layout;
    p.src = with_spatial({g.n, g.c_in}, g.in, g.nd);
    p.dst = with_spatial({g.n, g.c_out}, g.out, g.nd);
    p.weights = g.groups > 1 ? with_spatial({g.groups, g.c_out_group(), g.c_in_group()}, g.k, g.nd)
                             : with_spatial({g.c_out, g.c_in}, g.k, g.nd);
    p.bias = {g.c_out};
    for (int i = 3 - g.nd; i < 3; ++i) {
        p.strides.push_back(g.stride[i]);
        p.dilates.push_back(g.dilate[i] - 1);
        p.pad_l.push_back(g.pad[i]);
        // Whatever makes oneDNN's size formula give our (possibly cover_all) output size.
        p.pad_r.push_back((g.out[i] - 1) * g.stride[i] + (g.k[i] - 1) * g.dilate[i] + 1 - g.in[i] - g.pad[i]);
    }
    return p;
}

// One operand of a plan: its oneDNN argument, Chainer's layout and the primitive's.
struct Operand {
    int arg;
    memory::desc user, inner;
    bool output;
    std::optional<dnnl::reorder> reorder;  // user -> inner for inputs, inner -> user for outputs
};

struct Plan {
    dnnl::primitive compute;
    std::vector<Operand> operands;  // in the order execute's pointers come
};

Operand make_operand(int arg, const memory::desc& user, const memory::desc& inner, bool output) {
    Operand op{arg, user, inner, output, std::nullopt};
    if (user != inner) {
        const auto& e = cpu_engine();
        op.reorder = dnnl::reorder(output ? dnnl::reorder::primitive_desc(e, inner, e, user)
                                          : dnnl::reorder::primitive_desc(e, user, e, inner));
    }
    return op;
}
Operand input(int arg, const memory::desc& user, const memory::desc& inner) {
    return make_operand(arg, user, inner, false);
}
Operand output(int arg, const memory::desc& user, const memory::desc& inner) {
    return make_operand(arg, user, inner, true);
}

// Runs a plan on the given pointers (one per operand; null skips one).
void execute(const Plan& plan, const std::vector<const void*>& ptrs) {
    dnnl::stream stream(cpu_engine());
    std::unordered_map<int, memory> args;
    std::vector<std::pair<const Operand*, std::pair<memory, memory>>> outputs;  // op, (inner, user)
    std::vector<Array> buffers;
    buffers.reserve(plan.operands.size());
    for (size_t i = 0; i < plan.operands.size(); ++i) {
        const Operand& op = plan.operands[i];
        if (ptrs[i] == nullptr) continue;
        memory user(op.user, cpu_engine(), const_cast<void*>(ptrs[i]));
        if (!op.reorder) {
            args.emplace(op.arg, user);
            continue;
        }
        // Reorder buffers come from rensa's caching allocator (no page faults per call).
        buffers.push_back(Array::empty({static_cast<int64_t>(op.inner.get_size())}, Dtype::kUInt8, Device::native()));
        memory inner(op.inner, cpu_engine(), buffers.back().raw_data());
        if (op.output) {
            outputs.push_back({&op, {inner, user}});
        } else {
            op.reorder->execute(stream, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}});
        }
        args.emplace(op.arg, inner);
    }
    plan.compute.execute(stream, args);
    for (const auto& [op, mems] : outputs) {
        op->reorder->execute(stream, {{DNNL_ARG_FROM, mems.first}, {DNNL_ARG_TO, mems.second}});
    }
    stream.wait();
}

enum class Direction { kForward, kForwardBias, kBackwardData, kBackwardFilter, kBackwardFilterBias };

dnnl::convolution_forward::primitive_desc forward_pd(const Problem& p, bool bias) {
    const auto kind = dnnl::prop_kind::forward_training;
    const auto algo = dnnl::algorithm::convolution_direct;
    if (bias) {
        return {{kind, algo, p.inner(p.src), p.inner(p.weights), plain(p.bias, kF32), p.inner(p.dst), p.strides,
                 p.dilates, p.pad_l, p.pad_r},
                cpu_engine()};
    }
    return {{kind, algo, p.inner(p.src), p.inner(p.weights), p.inner(p.dst), p.strides, p.dilates, p.pad_l, p.pad_r},
            cpu_engine()};
}

// Refuses what Note [oneDNN bfloat16] says the caller runs faster another way.
template <class Pd>
void check_implementation(const Problem& p, const Pd& pd) {
    if (p.type == DataType::bf16 && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) {
        throw dnnl::error(dnnl_unimplemented, "bfloat16 convolution has only a reference implementation");
    }
}

Plan forward_plan(const Problem& p, bool bias) {
    const auto pd = forward_pd(p, bias);
    check_implementation(p, pd);
    Plan plan{dnnl::convolution_forward(pd),
              {input(DNNL_ARG_SRC, p.user(p.src), pd.src_desc()),
               input(DNNL_ARG_WEIGHTS, p.user(p.weights), pd.weights_desc())}};
    if (bias) plan.operands.push_back(input(DNNL_ARG_BIAS, plain(p.bias, kF32), pd.bias_desc()));
    plan.operands.push_back(output(DNNL_ARG_DST, p.user(p.dst), pd.dst_desc()));
    return plan;
}

Plan backward_data_plan(const Problem& p) {
    const dnnl::convolution_backward_data::primitive_desc pd(
        {dnnl::algorithm::convolution_direct, p.inner(p.src), p.inner(p.weights), p.inner(p.dst), p.strides, p.dilates,
         p.pad_l, p.pad_r},
        cpu_engine(), forward_pd(p, false));
    check_implementation(p, pd);
    return {dnnl::convolution_backward_data(pd),
            {input(DNNL_ARG_DIFF_DST, p.user(p.dst), pd.diff_dst_desc()),
             input(DNNL_ARG_WEIGHTS, p.user(p.weights), pd.weights_desc()),
             output(DNNL_ARG_DIFF_SRC, p.user(p.src), pd.diff_src_desc())}};
}

// diff_weights (and diff_bias) are float32 whatever p.type is (Note [oneDNN bfloat16]).
Plan backward_filter_plan(const Problem& p, bool bias) {
    const auto algo = dnnl::algorithm::convolution_direct;
    const memory::desc gw = inner_desc(p.weights, kF32, p.layout);
    const auto pd = bias ? dnnl::convolution_backward_weights::primitive_desc(
                               {algo, p.inner(p.src), gw, plain(p.bias, kF32), p.inner(p.dst), p.strides, p.dilates,
                                p.pad_l, p.pad_r},
                               cpu_engine(), forward_pd(p, true))
                         : dnnl::convolution_backward_weights::primitive_desc(
                               {algo, p.inner(p.src), gw, p.inner(p.dst), p.strides, p.dilates, p.pad_l, p.pad_r},
                               cpu_engine(), forward_pd(p, false));
    check_implementation(p, pd);
    Plan plan{
        dnnl::convolution_backward_weights(pd),
        {input(DNNL_ARG_SRC, p.user(p.src), pd.src_desc()), input(DNNL_ARG_DIFF_DST, p.user(p.dst), pd.diff_dst_desc()),
         output(DNNL_ARG_DIFF_WEIGHTS, plain(p.weights, kF32), pd.diff_weights_desc())}};
    if (bias) plan.operands.push_back(output(DNNL_ARG_DIFF_BIAS, plain(p.bias, kF32), pd.diff_bias_desc()));
    return plan;
}

Plan build_plan(const Problem& p, Direction direction) {
    switch (direction) {
        case Direction::kForward:
            return forward_plan(p, false);
        case Direction::kForwardBias:
            return forward_plan(p, true);
        case Direction::kBackwardData:
            return backward_data_plan(p);
        case Direction::kBackwardFilter:
            return backward_filter_plan(p, false);
        case Direction::kBackwardFilterBias:
            return backward_filter_plan(p, true);
    }
    __builtin_unreachable();
}

// The cached plan of a problem; null when oneDNN refuses it. See Note [oneDNN plans].
std::shared_ptr<const Plan> find_plan(const WindowGeometry& g, Direction direction, DnnlPrecision precision,
                                      DnnlLayout layout) {
    using Key = std::tuple<int, int, int, int, int64_t, int64_t, int64_t, int64_t, std::array<int64_t, 18>>;
    const Key key{static_cast<int>(direction),
                  static_cast<int>(precision),
                  static_cast<int>(layout),
                  g.nd,
                  g.n,
                  g.c_in,
                  g.c_out,
                  g.groups,
                  {g.in[0], g.in[1], g.in[2], g.out[0], g.out[1], g.out[2], g.k[0], g.k[1], g.k[2], g.stride[0],
                   g.stride[1], g.stride[2], g.pad[0], g.pad[1], g.pad[2], g.dilate[0], g.dilate[1], g.dilate[2]}};
    static std::mutex mutex;
    static std::map<Key, std::shared_ptr<const Plan>> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    std::shared_ptr<const Plan> plan;
    try {
        plan = std::make_shared<const Plan>(build_plan(problem(g, precision, layout), direction));
    } catch (const dnnl::error&) {
        plan = nullptr;  // unimplemented here: the caller's other path runs instead
    }
    cache.emplace(key, plan);
    return plan;
}

}  // namespace

bool dnnl_convolution(const WindowGeometry& g, DnnlPrecision precision, const void* x, const void* w, const float* b,
                      void* y, DnnlLayout layout) {
    const auto plan = find_plan(g, b ? Direction::kForwardBias : Direction::kForward, precision, layout);
    if (!plan) return false;
    execute(*plan, b ? std::vector<const void*>{x, w, b, y} : std::vector<const void*>{x, w, y});
    return true;
}

bool dnnl_convolution_backward_data(const WindowGeometry& g, DnnlPrecision precision, const void* gy, const void* w,
                                    void* gx, DnnlLayout layout) {
    const auto plan = find_plan(g, Direction::kBackwardData, precision, layout);
    if (!plan) return false;
    execute(*plan, {gy, w, gx});
    return true;
}

bool dnnl_convolution_backward_filter(const WindowGeometry& g, DnnlPrecision precision, const void* x, const void* gy,
                                      float* gw, float* gb, DnnlLayout layout) {
    const auto plan = find_plan(g, gb ? Direction::kBackwardFilterBias : Direction::kBackwardFilter, precision, layout);
    if (!plan) return false;
    execute(*plan, gb ? std::vector<const void*>{x, gy, gw, gb} : std::vector<const void*>{x, gy, gw});
    return true;
}

}  // namespace rensa::native

#else  // no oneDNN: the caller's other path runs every problem

namespace rensa::native {
bool dnnl_convolution(const WindowGeometry&, DnnlPrecision, const void*, const void*, const float*, void*, DnnlLayout) {
    return false;
}
bool dnnl_convolution_backward_data(const WindowGeometry&, DnnlPrecision, const void*, const void*, void*, DnnlLayout) {
    return false;
}
bool dnnl_convolution_backward_filter(const WindowGeometry&, DnnlPrecision, const void*, const void*, float*, float*,
                                      DnnlLayout) {
    return false;
}
}  // namespace rensa::native

#endif
