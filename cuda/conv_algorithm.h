#pragma once
// The cuDNN algorithm of each convolution problem: listed once, walked and cached as
// cuda/conv_plan.h says. Private to kernels_conv.cc.
//
// Note [cuDNN algorithm choice]: the candidates are listed once per (direction, device,
// dtype, math type, shapes, pad/stride/dilation, groups, the buffers' common alignment) and
// walked as Note [Convolution fallback] (cuda/conv_plan.h) says. By default they come from
// cudnnGet*Algorithm_v7 (heuristics, runs nothing); with RENSA_CUDNN_BENCHMARK=1 (PyTorch's
// cudnn.benchmark) from cudnnFind*AlgorithmEx, which runs every algorithm on the call's own
// buffers (outputs are overwritten anyway) once per problem. Candidates are those cuDNN
// reports successful whose workspace (asked again of cuDNN, under the math type it will run
// with) fits in the free device memory plus our allocator's cache, in cuDNN's order.
// float32 without TF32 keeps CUDNN_FMA_MATH whatever the candidate reports, so TF32 never
// sneaks in; other dtypes take the candidate's math type, as PyTorch does.

#include <cudnn.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "cuda/conv_descriptors.h"
#include "cuda/conv_plan.h"

namespace rensa::cuda {

// One problem as cuDNN sees it. Roles follow the forward convolution: x (input or its
// gradient), w (filter or its gradient), y (output or its gradient).
struct ConvProblem {
    ConvDirection direction = ConvDirection::kForward;
    int device = 0;
    cudnnHandle_t handle = nullptr;
    const TensorDescriptor* x = nullptr;
    const FilterDescriptor* w = nullptr;
    const ConvolutionDescriptor* conv = nullptr;  // its math type is the requested one
    const TensorDescriptor* y = nullptr;
    void* x_data = nullptr;  // buffers for benchmark mode
    void* w_data = nullptr;
    void* y_data = nullptr;
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;  // requested
    std::vector<int64_t> key;                   // dtype, shapes and parameters (direction, device, math added)
    const ConvShapes* shapes = nullptr;         // the same problem in the user's terms (for the fallback line)
};

// Runs `problem` through cuDNN: `try_run` with the problem's cached candidate, then the next
// ones while it answers kCannotRun (see Note [Convolution fallback]). False when no
// candidate runs: the caller runs the direct kernels (reported on stderr once per problem).
// try_run sets the descriptor's math type to the candidate's and throws on real failures.
bool run_cudnn_convolution(const ConvProblem& problem, const std::function<ConvRun(const ConvAlgorithm&)>& try_run);

}  // namespace rensa::cuda
