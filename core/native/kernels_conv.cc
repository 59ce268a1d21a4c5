// Convolution kernels: float32 through oneDNN where it is built in (im2col + OpenBLAS
// GEMM otherwise), bfloat16 through oneDNN's bfloat16 kernels (Note [oneDNN bfloat16]),
// float64 through im2col + GEMM, float16 (and bfloat16 that oneDNN refuses) computed in
// float32. Operands are made contiguous first. See Note [Convolution layout] in core/kernels.h.

#include <concepts>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "core/native/conv_dnnl.h"
#include "core/native/conv_im2col.h"
#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

// Operands as contiguous arrays of the compute dtype (float32 for halves).
Array operand(const Array& a, Dtype compute) {
    return a.defined() ? a.astype(compute, false).as_contiguous() : Array();
}

template <class T>
const T* ptr(const Array& a) {
    return a.defined() ? static_cast<const T*>(a.raw_data()) : nullptr;
}

template <class T>
T* out_ptr(const Array& a) {
    return static_cast<T*>(a.raw_data());
}

// Multiply-adds below which im2col runs float32 too: oneDNN's per-call stream, reorders
// and first-call JIT cost more than such a convolution.
constexpr int64_t kDnnlMinMacs = int64_t{1} << 18;

// Whether float32 goes to oneDNN; RENSA_CONV_ALGO=im2col forces im2col (for benchmarks).
bool use_dnnl(const WindowGeometry& g) {
    static const bool enabled = [] {
        const char* algo = std::getenv("RENSA_CONV_ALGO");
        return algo == nullptr || std::strcmp(algo, "im2col") != 0;
    }();
    return enabled && g.n * g.c_out * g.out_size() * g.c_in_group() * g.k_size() >= kDnnlMinMacs;
}

// Note [oneDNN layout choice]: oneDNN's blocked layouts pad channels to blocks of 16, so
// a direction whose output has few channels per group wastes most of its work there.
// Measured (ms, 1 thread, im2col / oneDNN blocked / oneDNN plain): the data gradient of
// conv_1_32_k5_28 21 / 36 / 2.1, while conv_32_64_k5_12 runs 89-96 / 9.5-11 / 21 and
// conv_64_64_k3_32 741-1204 / 193-240 / 319-351 in every direction. im2col + OpenBLAS
// never won for float32 at these sizes; it stays the path for float64 and tiny problems.
// The ConvNet of benchmarks/train_convnet (issue 24; least of 20 oneDNN verbose times per
// primitive, 1 thread, ms): blocked conv2 runs 18 / 17.6 / 20 (forward / data / filter) plus
// ~2.7 per step of reorders in all, while plain (gemm) runs 43 / 45 / 41, and plain x and y
// with blocked weights 32 / 31 / 41; conv1 blocked 0.81 + 0.72 reorder beats plain 1.98
// forward, 0.62 + 0.57 beats 2.64 filter. Blocked stays wherever the channels fill a block.
DnnlLayout dnnl_layout(int64_t output_channels) { return output_channels < 16 ? DnnlLayout::kPlain : DnnlLayout::kAny; }

// Runs fn.template operator()<T>(inputs..., out) with T the compute type (float or
// double) on contiguous operands, writing halves back through a float32 temporary.
template <class Fn>
void run(const Array& out, Fn&& fn) {
    visit_dtype(out.dtype(), [&]<typename T>() {
        if constexpr (std::same_as<T, float> || std::same_as<T, double>) {
            if (out.is_contiguous()) return fn.template operator()<T>(out, dtype_of<T>());
            const Array tmp = Array::empty(out.shape(), out.dtype(), out.device());
            fn.template operator()<T>(tmp, dtype_of<T>());
            out.assign(tmp);
        } else if constexpr (kIsHalfLike<T>) {
            const Array tmp = Array::empty(out.shape(), Dtype::kFloat32, out.device());
            fn.template operator()<float>(tmp, Dtype::kFloat32);
            out.assign(tmp);
        } else {
            RENSA_THROW(DtypeError, "convolution: float dtypes only, got ", dtype_name(out.dtype()));
        }
    });
}

// Runs compute on out itself when it is contiguous of dtype `type`, else on a temporary
// of that dtype copied into out (rounding once) when compute succeeds.
template <class Fn>
bool write_through(const Array& out, Dtype type, Fn&& compute) {
    if (out.dtype() == type && out.is_contiguous()) return compute(out);
    const Array tmp = Array::empty(out.shape(), type, out.device());
    if (!compute(tmp)) return false;
    out.assign(tmp);
    return true;
}

// The bfloat16 problems oneDNN takes in bfloat16 (Note [oneDNN bfloat16]); false when the
// float32-temporary path of run() is to compute it instead.
bool bf16_via_dnnl(const WindowGeometry& g, const Array& out) { return out.dtype() == Dtype::kBFloat16 && use_dnnl(g); }
constexpr DnnlPrecision kBf16 = DnnlPrecision::kBFloat16;
constexpr Dtype kBf16Dtype = Dtype::kBFloat16;

bool bf16_convolution(const WindowGeometry& g, const ConvolutionArgs& a) {
    if (!bf16_via_dnnl(g, a.y)) return false;
    const Array x = operand(a.x, kBf16Dtype), w = operand(a.w, kBf16Dtype), b = operand(a.b, Dtype::kFloat32);
    return write_through(a.y, kBf16Dtype, [&](const Array& y) {
        return dnnl_convolution(g, kBf16, x.raw_data(), w.raw_data(), ptr<float>(b), y.raw_data(),
                                dnnl_layout(g.c_out_group()));
    });
}

bool bf16_convolution_backward_data(const WindowGeometry& g, const ConvolutionBackwardDataArgs& a) {
    if (!bf16_via_dnnl(g, a.gx)) return false;
    const Array gy = operand(a.gy, kBf16Dtype), w = operand(a.w, kBf16Dtype);
    return write_through(a.gx, kBf16Dtype, [&](const Array& gx) {
        return dnnl_convolution_backward_data(g, kBf16, gy.raw_data(), w.raw_data(), gx.raw_data(),
                                              dnnl_layout(g.c_in_group()));
    });
}

// oneDNN sums the weight gradient in float32; gw is rounded to bfloat16 once, at the end.
bool bf16_convolution_backward_filter(const WindowGeometry& g, const ConvolutionBackwardFilterArgs& a) {
    if (!bf16_via_dnnl(g, a.gw)) return false;
    const Array x = operand(a.x, kBf16Dtype), gy = operand(a.gy, kBf16Dtype);
    return write_through(a.gw, Dtype::kFloat32, [&](const Array& gw) {
        return dnnl_convolution_backward_filter(g, kBf16, x.raw_data(), gy.raw_data(), out_ptr<float>(gw), nullptr,
                                                dnnl_layout(g.c_out_group()));
    });
}

}  // namespace

void NativeKernels::convolution(const ConvolutionArgs& args) {
    const WindowGeometry g = WindowGeometry::convolution(args.x.shape(), args.w.shape(), args.y.shape(), args.stride,
                                                         args.pad, args.dilate, args.groups);
    if (bf16_convolution(g, args)) return;
    run(args.y, [&]<typename T>(const Array& y, Dtype compute) {
        const Array x = operand(args.x, compute), w = operand(args.w, compute), b = operand(args.b, compute);
        if constexpr (std::same_as<T, float>) {
            if (use_dnnl(g) && dnnl_convolution(g, DnnlPrecision::kFloat32, ptr<T>(x), ptr<T>(w), ptr<T>(b),
                                                out_ptr<T>(y), dnnl_layout(g.c_out_group())))
                return;
        }
        im2col_convolution<T>(g, ptr<T>(x), ptr<T>(w), ptr<T>(b), out_ptr<T>(y));
    });
}

void NativeKernels::convolution_backward_data(const ConvolutionBackwardDataArgs& args) {
    const WindowGeometry g = WindowGeometry::convolution(args.gx.shape(), args.w.shape(), args.gy.shape(), args.stride,
                                                         args.pad, args.dilate, args.groups);
    if (bf16_convolution_backward_data(g, args)) return;
    run(args.gx, [&]<typename T>(const Array& gx, Dtype compute) {
        const Array gy = operand(args.gy, compute), w = operand(args.w, compute);
        if constexpr (std::same_as<T, float>) {
            if (use_dnnl(g) && dnnl_convolution_backward_data(g, DnnlPrecision::kFloat32, ptr<T>(gy), ptr<T>(w),
                                                              out_ptr<T>(gx), dnnl_layout(g.c_in_group())))
                return;
        }
        im2col_convolution_backward_data<T>(g, ptr<T>(gy), ptr<T>(w), out_ptr<T>(gx));
    });
}

void NativeKernels::convolution_backward_filter(const ConvolutionBackwardFilterArgs& args) {
    const WindowGeometry g = WindowGeometry::convolution(args.x.shape(), args.gw.shape(), args.gy.shape(), args.stride,
                                                         args.pad, args.dilate, args.groups);
    if (bf16_convolution_backward_filter(g, args)) return;
    run(args.gw, [&]<typename T>(const Array& gw, Dtype compute) {
        const Array x = operand(args.x, compute), gy = operand(args.gy, compute);
        if constexpr (std::same_as<T, float>) {
            if (use_dnnl(g) && dnnl_convolution_backward_filter(g, DnnlPrecision::kFloat32, ptr<T>(x), ptr<T>(gy),
                                                                out_ptr<T>(gw), nullptr, dnnl_layout(g.c_out_group())))
                return;
        }
        im2col_convolution_backward_filter<T>(g, ptr<T>(x), ptr<T>(gy), out_ptr<T>(gw));
    });
}

}  // namespace rensa::native
