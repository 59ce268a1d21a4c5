#pragma once
// The cuDNN algorithm of each convolution problem, chosen once and cached. Private to
// kernels_conv.cc.
//
// Note [cuDNN algorithm choice]: the choice is cached per (direction, device, dtype, math
// type, shapes, pad/stride/dilation, groups) in a mutex-protected map. By default it comes
// from cudnnGet*Algorithm_v7 (heuristics, runs nothing); with RENSA_CUDNN_BENCHMARK=1
// (PyTorch's cudnn.benchmark) from cudnnFind*AlgorithmEx, which runs every algorithm on
// the call's own buffers (outputs are overwritten anyway) once per problem. The first
// candidate that succeeds and whose workspace (asked again of cuDNN, under the math type
// it will run with) fits in the free device memory plus our allocator's cache wins.
// float32 without TF32 keeps CUDNN_FMA_MATH whatever the candidate reports, so TF32
// never sneaks in; other dtypes take the candidate's math type, as PyTorch does.

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuda/conv_descriptors.h"

namespace rensa::cuda {

enum class ConvDirection : uint8_t { kForward, kBackwardData, kBackwardFilter };

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
};

struct ConvAlgorithm {
    int algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
    size_t workspace_bytes = 0;
};

// The cached algorithm of `problem`, chosen on first use (see Note [cuDNN algorithm
// choice]); nothing when cuDNN supports no algorithm whose workspace fits (also cached).
std::optional<ConvAlgorithm> conv_algorithm(const ConvProblem& problem);

}  // namespace rensa::cuda
