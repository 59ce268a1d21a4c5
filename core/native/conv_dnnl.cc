// oneDNN convolutions (float32). Note [oneDNN plans]: a Plan is one convolution primitive
// whose operands oneDNN lays out as it likes (format_tag::any, usually channel-blocked),
// plus the reorders between those layouts and Chainer's plain ones. Plans are built once
// per problem (shapes, stride, pad, dilate, groups, direction) and cached; a problem
// oneDNN refuses caches an empty plan so the im2col path takes it from then on.

#include "core/native/conv_dnnl.h"

#ifdef RENSA_WITH_DNNL

#include "core/array.h"

#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace rensa::native {
namespace {

using dnnl::memory;
using Dims = memory::dims;

dnnl::engine& cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

memory::desc plain(const Dims& dims) {
    Dims strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
    return {dims, memory::data_type::f32, strides};
}
memory::desc any(const Dims& dims) { return {dims, memory::data_type::f32, memory::format_tag::any}; }
// The layout the primitive is asked for: oneDNN's choice or Chainer's plain one.
memory::desc inner(const Dims& dims, DnnlLayout layout) { return layout == DnnlLayout::kAny ? any(dims) : plain(dims); }

Dims with_spatial(Dims head, const int64_t (&tail)[kWindowDims], int nd) {
    for (int i = 3 - nd; i < 3; ++i) head.push_back(tail[i]);
    return head;
}

// The dims oneDNN describes the problem with (weights carry the group axis when grouped).
struct Problem {
    Dims src, weights, bias, dst, strides, dilates, pad_l, pad_r;
};
Problem problem(const WindowGeometry& g) {
    Problem p;
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
    std::optional<dnnl::reorder> reorder;  // user -> inner for inputs, inner -> user for the output
};

struct Plan {
    dnnl::primitive compute;
    std::vector<Operand> operands;  // the inputs, then the output last
};

Operand make_operand(int arg, const memory::desc& user, const memory::desc& inner, bool output) {
    Operand op{arg, user, inner, std::nullopt};
    if (user != inner) {
        const auto& e = cpu_engine();
        op.reorder = dnnl::reorder(output ? dnnl::reorder::primitive_desc(e, inner, e, user)
                                          : dnnl::reorder::primitive_desc(e, user, e, inner));
    }
    return op;
}

// Runs a plan on the given pointers (one per operand, the output last; null skips one).
void execute(const Plan& plan, const std::vector<const float*>& ptrs) {
    dnnl::stream stream(cpu_engine());
    std::unordered_map<int, memory> args;
    std::optional<memory> output_user, output_inner;
    std::vector<Array> buffers;
    buffers.reserve(plan.operands.size());
    for (size_t i = 0; i < plan.operands.size(); ++i) {
        const Operand& op = plan.operands[i];
        if (ptrs[i] == nullptr) continue;
        memory user(op.user, cpu_engine(), const_cast<float*>(ptrs[i]));
        const bool is_output = i + 1 == plan.operands.size();
        if (!op.reorder) {
            args.emplace(op.arg, user);
            continue;
        }
        // Reorder buffers come from rensa's caching allocator (no page faults per call).
        buffers.push_back(Array::empty({static_cast<int64_t>(op.inner.get_size())}, Dtype::kUInt8, Device::native()));
        memory inner(op.inner, cpu_engine(), buffers.back().raw_data());
        if (is_output) {
            output_user = user;
            output_inner = inner;
        } else {
            op.reorder->execute(stream, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}});
        }
        args.emplace(op.arg, inner);
    }
    plan.compute.execute(stream, args);
    if (output_inner) {
        plan.operands.back().reorder->execute(stream, {{DNNL_ARG_FROM, *output_inner}, {DNNL_ARG_TO, *output_user}});
    }
    stream.wait();
}

enum class Direction { kForward, kForwardBias, kBackwardData, kBackwardFilter };

dnnl::convolution_forward::primitive_desc forward_pd(const Problem& p, bool bias, DnnlLayout l) {
    const auto kind = dnnl::prop_kind::forward_training;
    const auto algo = dnnl::algorithm::convolution_direct;
    if (bias) {
        return {{kind, algo, inner(p.src, l), inner(p.weights, l), plain(p.bias), inner(p.dst, l), p.strides, p.dilates,
                 p.pad_l, p.pad_r},
                cpu_engine()};
    }
    return {{kind, algo, inner(p.src, l), inner(p.weights, l), inner(p.dst, l), p.strides, p.dilates, p.pad_l, p.pad_r},
            cpu_engine()};
}

Plan build_plan(const WindowGeometry& g, Direction direction, DnnlLayout l) {
    const Problem p = problem(g);
    const bool bias = direction == Direction::kForwardBias;
    const auto fwd = forward_pd(p, bias, l);
    const auto algo = dnnl::algorithm::convolution_direct;
    switch (direction) {
        case Direction::kForward:
        case Direction::kForwardBias: {
            Plan plan{dnnl::convolution_forward(fwd),
                      {make_operand(DNNL_ARG_SRC, plain(p.src), fwd.src_desc(), false),
                       make_operand(DNNL_ARG_WEIGHTS, plain(p.weights), fwd.weights_desc(), false)}};
            if (bias) plan.operands.push_back(make_operand(DNNL_ARG_BIAS, plain(p.bias), fwd.bias_desc(), false));
            plan.operands.push_back(make_operand(DNNL_ARG_DST, plain(p.dst), fwd.dst_desc(), true));
            return plan;
        }
        case Direction::kBackwardData: {
            const dnnl::convolution_backward_data::primitive_desc pd(
                {algo, inner(p.src, l), inner(p.weights, l), inner(p.dst, l), p.strides, p.dilates, p.pad_l, p.pad_r},
                cpu_engine(), fwd);
            return {dnnl::convolution_backward_data(pd),
                    {make_operand(DNNL_ARG_DIFF_DST, plain(p.dst), pd.diff_dst_desc(), false),
                     make_operand(DNNL_ARG_WEIGHTS, plain(p.weights), pd.weights_desc(), false),
                     make_operand(DNNL_ARG_DIFF_SRC, plain(p.src), pd.diff_src_desc(), true)}};
        }
        case Direction::kBackwardFilter: {
            const dnnl::convolution_backward_weights::primitive_desc pd(
                {algo, inner(p.src, l), inner(p.weights, l), inner(p.dst, l), p.strides, p.dilates, p.pad_l, p.pad_r},
                cpu_engine(), fwd);
            return {dnnl::convolution_backward_weights(pd),
                    {make_operand(DNNL_ARG_SRC, plain(p.src), pd.src_desc(), false),
                     make_operand(DNNL_ARG_DIFF_DST, plain(p.dst), pd.diff_dst_desc(), false),
                     make_operand(DNNL_ARG_DIFF_WEIGHTS, plain(p.weights), pd.diff_weights_desc(), true)}};
        }
    }
    __builtin_unreachable();
}

// The cached plan of a problem; null when oneDNN refuses it. See Note [oneDNN plans].
std::shared_ptr<const Plan> find_plan(const WindowGeometry& g, Direction direction, DnnlLayout layout) {
    using Key = std::tuple<int, int, int, int64_t, int64_t, int64_t, int64_t, std::array<int64_t, 18>>;
    const Key key{static_cast<int>(direction),
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
        plan = std::make_shared<const Plan>(build_plan(g, direction, layout));
    } catch (const dnnl::error&) {
        plan = nullptr;  // unimplemented here: the im2col path runs instead
    }
    cache.emplace(key, plan);
    return plan;
}

}  // namespace

bool dnnl_convolution(const WindowGeometry& g, const float* x, const float* w, const float* b, float* y,
                      DnnlLayout layout) {
    const auto plan = find_plan(g, b ? Direction::kForwardBias : Direction::kForward, layout);
    if (!plan) return false;
    execute(*plan, b ? std::vector<const float*>{x, w, b, y} : std::vector<const float*>{x, w, y});
    return true;
}

bool dnnl_convolution_backward_data(const WindowGeometry& g, const float* gy, const float* w, float* gx,
                                    DnnlLayout layout) {
    const auto plan = find_plan(g, Direction::kBackwardData, layout);
    if (!plan) return false;
    execute(*plan, {gy, w, gx});
    return true;
}

bool dnnl_convolution_backward_filter(const WindowGeometry& g, const float* x, const float* gy, float* gw,
                                      DnnlLayout layout) {
    const auto plan = find_plan(g, Direction::kBackwardFilter, layout);
    if (!plan) return false;
    execute(*plan, {x, gy, gw});
    return true;
}

}  // namespace rensa::native

#else  // no oneDNN: the im2col path runs every problem

namespace rensa::native {
bool dnnl_convolution(const WindowGeometry&, const float*, const float*, const float*, float*, DnnlLayout) {
    return false;
}
bool dnnl_convolution_backward_data(const WindowGeometry&, const float*, const float*, float*, DnnlLayout) {
    return false;
}
bool dnnl_convolution_backward_filter(const WindowGeometry&, const float*, const float*, float*, DnnlLayout) {
    return false;
}
}  // namespace rensa::native

#endif
