// Convolution, its data gradient and its filter gradient through cuDNN (1 to 3 spatial
// dims, groups, dilation; see Note [Convolution layout] in core/kernels.h). Operands are
// made contiguous first (filters must be packed; packed tensors also keep every cuDNN
// algorithm available); 1-d problems run as 2-d ones with a height of 1. Half types
// compute in float32 on tensor cores; float32 uses TF32 only when cuda::allow_tf32().
// Algorithms: see Note [cuDNN algorithm choice] in cuda/conv_algorithm.h. Problems no cuDNN
// algorithm runs go to the direct kernels of cuda/conv_direct.h, once reported (Note
// [Convolution fallback] in cuda/conv_plan.h).

#include <cudnn.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/check.h"
#include "cuda/conv_algorithm.h"
#include "cuda/conv_descriptors.h"
#include "cuda/conv_direct.h"
#include "cuda/conv_plan.h"
#include "cuda/conv_shape.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/handles.h"

namespace rensa::cuda {
namespace {

int to_int(int64_t v, const char* what) {
    RENSA_CHECK(v >= 0 && v <= INT_MAX, ValueError, "convolution: cuDNN takes sizes below 2^31, got ", what, "=", v);
    return static_cast<int>(v);
}

// cuDNN dims of an (n, c, *spatial) shape; 1-d gets a spatial dim of 1 in front.
std::vector<int> cudnn_dims(const Shape& shape) {
    int64_t size = 1;
    std::vector<int> dims;
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
        if (shape.size() == 3 && d == 2) dims.push_back(1);
        dims.push_back(to_int(shape[d], "a dimension"));
        size *= shape[d];
    }
    to_int(size, "an operand's size");  // packed strides must fit an int
    return dims;
}

// One entry per spatial dim; 1-d gets `filler` in front.
std::vector<int> cudnn_params(const Shape& values, int filler, const char* what) {
    std::vector<int> out;
    if (values.size() == 1) out.push_back(filler);
    for (int64_t v : values) out.push_back(to_int(v, what));
    return out;
}

cudnnMathType_t math_type(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
        case Dtype::kBFloat16:
            return CUDNN_TENSOR_OP_MATH;
        case Dtype::kFloat32:
            return allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
        case Dtype::kFloat64:
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            break;
    }
    return CUDNN_DEFAULT_MATH;
}

// The descriptors of one problem, shapes in forward roles: x (n, c_in, *in), w, y.
struct ConvSetup {
    explicit ConvSetup(const ConvShapes& p)
        : data{cudnn_data_type(p.dtype)},
          math{math_type(p.dtype)},
          x_dims{cudnn_dims(p.x)},
          w_dims{cudnn_dims(p.w)},
          y_dims{cudnn_dims(p.y)},
          pads{cudnn_params(p.pad, 0, "pad")},
          strides{cudnn_params(p.stride, 1, "stride")},
          dilations{cudnn_params(p.dilate, 1, "dilate")},
          x{data, x_dims},
          w{data, w_dims},
          conv{pads,
               strides,
               dilations,
               to_int(p.groups, "groups"),
               p.dtype == Dtype::kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT,
               math},
          y{data, y_dims} {}

    // What the algorithm choice depends on (besides direction, device and math type).
    std::vector<int64_t> key() const {
        std::vector<int64_t> k{static_cast<int64_t>(data), static_cast<int64_t>(x_dims.size())};
        for (const std::vector<int>* v : {&x_dims, &w_dims, &y_dims, &pads, &strides, &dilations}) {
            k.insert(k.end(), v->begin(), v->end());
        }
        return k;  // groups = x_dims[1] / w_dims[1]: already in the key
    }

    cudnnDataType_t data;
    cudnnMathType_t math;
    std::vector<int> x_dims, w_dims, y_dims, pads, strides, dilations;
    TensorDescriptor x;
    FilterDescriptor w;
    ConvolutionDescriptor conv;
    TensorDescriptor y;
};

// alpha = 1 and beta = 0 in the scaling type cuDNN wants (double for float64 data).
struct OneZero {
    explicit OneZero(Dtype dtype) : is_double{dtype == Dtype::kFloat64} {}
    const void* one() const { return is_double ? static_cast<const void*>(&one_d) : &one_f; }
    const void* zero() const { return is_double ? static_cast<const void*>(&zero_d) : &zero_f; }
    bool is_double;
    float one_f = 1.0f, zero_f = 0.0f;
    double one_d = 1.0, zero_d = 0.0;
};

// One cuDNN call of a direction: runs `algo` on the descriptors of `s` with `workspace`
// (of algo.workspace_bytes bytes); alpha = 1 and beta = 0 (the output is overwritten).
using CudnnCall = std::function<cudnnStatus_t(cudnnHandle_t handle, const ConvSetup& s, const OneZero& scale,
                                              const ConvAlgorithm& algo, void* workspace)>;

// Runs a problem through cuDNN with the candidates of Note [Convolution fallback]; false
// (nothing run) when none runs: the direct kernels of cuda/conv_direct.h run it then.
bool run_cudnn(ConvDirection direction, int device, const ConvShapes& shapes, void* x, void* w, void* y,
               const CudnnCall& call, const char* call_name) {
    const ConvSetup s{shapes};
    const OneZero scale{shapes.dtype};
    const cudnnHandle_t handle = cudnn_handle(device);
    const ConvProblem problem{.direction = direction,
                              .device = device,
                              .handle = handle,
                              .x = &s.x,
                              .w = &s.w,
                              .conv = &s.conv,
                              .y = &s.y,
                              .x_data = x,
                              .w_data = w,
                              .y_data = y,
                              .math = s.math,
                              .key = s.key(),
                              .shapes = &shapes};
    return run_cudnn_convolution(problem, [&](const ConvAlgorithm& algo) {
        s.conv.set_math_type(algo.math);
        const std::shared_ptr<Storage> workspace =
            caching_allocator(device).allocate(static_cast<int64_t>(algo.workspace_bytes));
        const cudnnStatus_t status = call(handle, s, scale, algo, workspace->data());
        if (cudnn_cannot_run(status)) return ConvRun::kCannotRun;  // nothing was queued
        check_cudnn(status, call_name);
        return ConvRun::kRan;
    });
}

// `out` itself when contiguous, else a contiguous temporary to copy back with finish().
Array output_buffer(const Array& out) {
    return out.is_contiguous() ? out : Array::empty(out.shape(), out.dtype(), out.device());
}

void finish(const Array& buffer, const Array& out) {
    if (buffer.storage() != out.storage()) out.assign(buffer);
}

// Each direction on contiguous operands through cuDNN; false (nothing run) when no cuDNN
// algorithm runs it, the output size is not cuDNN's (cover_all, a deconvolution's outsize:
// cuda/conv_shape.h) or the direct kernels are forced (see cuda/conv_direct.h). Only the
// first of these routes is unexpected, and logged (see Note [Convolution fallback]).
bool cudnn_forward(int device, const ConvolutionArgs& c) {
    if (force_direct_convolution() ||
        !cudnn_output_size_matches(c.x.shape(), c.w.shape(), c.y.shape(), c.stride, c.pad, c.dilate)) {
        return false;
    }
    const ConvShapes shapes{c.y.dtype(), c.x.shape(), c.w.shape(), c.y.shape(), c.stride, c.pad, c.dilate, c.groups};
    return run_cudnn(
        ConvDirection::kForward, device, shapes, c.x.raw_data(), c.w.raw_data(), c.y.raw_data(),
        [&](cudnnHandle_t handle, const ConvSetup& s, const OneZero& scale, const ConvAlgorithm& algo, void* ws) {
            return cudnnConvolutionForward(handle, scale.one(), s.x.get(), c.x.raw_data(), s.w.get(), c.w.raw_data(),
                                           s.conv.get(), static_cast<cudnnConvolutionFwdAlgo_t>(algo.algo), ws,
                                           algo.workspace_bytes, scale.zero(), s.y.get(), c.y.raw_data());
        },
        "cudnnConvolutionForward");
}

bool cudnn_backward_data(int device, const ConvolutionBackwardDataArgs& c) {
    if (force_direct_convolution() ||
        !cudnn_output_size_matches(c.gx.shape(), c.w.shape(), c.gy.shape(), c.stride, c.pad, c.dilate)) {
        return false;
    }
    const ConvShapes shapes{c.gx.dtype(), c.gx.shape(), c.w.shape(), c.gy.shape(), c.stride, c.pad, c.dilate, c.groups};
    // beta = 0: gx is overwritten (the contract), never accumulated into.
    return run_cudnn(
        ConvDirection::kBackwardData, device, shapes, c.gx.raw_data(), c.w.raw_data(), c.gy.raw_data(),
        [&](cudnnHandle_t handle, const ConvSetup& s, const OneZero& scale, const ConvAlgorithm& algo, void* ws) {
            return cudnnConvolutionBackwardData(handle, scale.one(), s.w.get(), c.w.raw_data(), s.y.get(),
                                                c.gy.raw_data(), s.conv.get(),
                                                static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.algo), ws,
                                                algo.workspace_bytes, scale.zero(), s.x.get(), c.gx.raw_data());
        },
        "cudnnConvolutionBackwardData");
}

bool cudnn_backward_filter(int device, const ConvolutionBackwardFilterArgs& c) {
    if (force_direct_convolution() ||
        !cudnn_output_size_matches(c.x.shape(), c.gw.shape(), c.gy.shape(), c.stride, c.pad, c.dilate)) {
        return false;
    }
    const ConvShapes shapes{c.gw.dtype(), c.x.shape(), c.gw.shape(), c.gy.shape(), c.stride, c.pad, c.dilate, c.groups};
    return run_cudnn(
        ConvDirection::kBackwardFilter, device, shapes, c.x.raw_data(), c.gw.raw_data(), c.gy.raw_data(),
        [&](cudnnHandle_t handle, const ConvSetup& s, const OneZero& scale, const ConvAlgorithm& algo, void* ws) {
            return cudnnConvolutionBackwardFilter(handle, scale.one(), s.x.get(), c.x.raw_data(), s.y.get(),
                                                  c.gy.raw_data(), s.conv.get(),
                                                  static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo.algo), ws,
                                                  algo.workspace_bytes, scale.zero(), s.w.get(), c.gw.raw_data());
        },
        "cudnnConvolutionBackwardFilter");
}

}  // namespace

void CudaKernels::convolution(const ConvolutionArgs& args) {
    DeviceGuard guard{device_};
    if (args.y.size() == 0) return;
    const Array y = output_buffer(args.y);
    const Array b = args.b.defined() ? args.b.as_contiguous() : Array();
    if (args.x.size() == 0 || args.w.size() == 0) {  // nothing to sum: y = b (or 0)
        if (b.defined()) {
            Shape b_shape(y.ndim(), 1);
            b_shape[1] = y.shape()[1];
            copy(b.reshape(b_shape).broadcast_to(y.shape()), y);
        } else {
            fill(y, Scalar{0.0});
        }
        return finish(y, args.y);
    }
    const ConvolutionArgs c{.x = args.x.as_contiguous(),
                            .w = args.w.as_contiguous(),
                            .b = b,
                            .y = y,
                            .stride = args.stride,
                            .pad = args.pad,
                            .dilate = args.dilate,
                            .groups = args.groups};
    if (!cudnn_forward(device_, c)) {
        direct_convolution(device_, c);  // adds the bias itself
    } else if (b.defined()) {            // in place through the binary kernel, b as a (1, c_out, 1...) view
        Shape b_shape(y.ndim(), 1);
        b_shape[1] = y.shape()[1];
        binary(BinaryOp::kAdd, y, b.reshape(b_shape).broadcast_to(y.shape()), y);
    }
    finish(y, args.y);
}

void CudaKernels::convolution_backward_data(const ConvolutionBackwardDataArgs& args) {
    DeviceGuard guard{device_};
    if (args.gx.size() == 0) return;
    const Array gx = output_buffer(args.gx);
    if (args.gy.size() == 0 || args.w.size() == 0) {  // nothing flows back
        fill(gx, Scalar{0.0});
        return finish(gx, args.gx);
    }
    const ConvolutionBackwardDataArgs c{.gy = args.gy.as_contiguous(),
                                        .w = args.w.as_contiguous(),
                                        .gx = gx,
                                        .stride = args.stride,
                                        .pad = args.pad,
                                        .dilate = args.dilate,
                                        .groups = args.groups};
    if (!cudnn_backward_data(device_, c)) direct_convolution_backward_data(device_, c);
    finish(gx, args.gx);
}

void CudaKernels::convolution_backward_filter(const ConvolutionBackwardFilterArgs& args) {
    DeviceGuard guard{device_};
    if (args.gw.size() == 0) return;
    const Array gw = output_buffer(args.gw);
    if (args.x.size() == 0 || args.gy.size() == 0) {  // an empty batch or output: gw = 0
        fill(gw, Scalar{0.0});
        return finish(gw, args.gw);
    }
    const ConvolutionBackwardFilterArgs c{.x = args.x.as_contiguous(),
                                          .gy = args.gy.as_contiguous(),
                                          .gw = gw,
                                          .stride = args.stride,
                                          .pad = args.pad,
                                          .dilate = args.dilate,
                                          .groups = args.groups};
    if (!cudnn_backward_filter(device_, c)) direct_convolution_backward_filter(device_, c);
    finish(gw, args.gw);
}

}  // namespace rensa::cuda
