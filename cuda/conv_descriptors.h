#pragma once
// RAII wrappers of the cuDNN descriptors a convolution needs, each set once at
// construction (dims of 4 or 5 entries: cuDNN wants at least 4-d tensors, so callers
// give 1-d convolutions a leading spatial dim of 1). Private to kernels_conv.cc.

#include <cudnn.h>

#include <vector>

#include "core/dtype.h"

namespace rensa::cuda {

// The cuDNN data type of a float dtype (DtypeError for the others).
cudnnDataType_t cudnn_data_type(Dtype dtype);

// A fully packed row-major tensor (NCHW / NCDHW) of `dims`.
class TensorDescriptor {
public:
    TensorDescriptor(cudnnDataType_t type, const std::vector<int>& dims);
    ~TensorDescriptor();
    TensorDescriptor(const TensorDescriptor&) = delete;
    TensorDescriptor& operator=(const TensorDescriptor&) = delete;
    cudnnTensorDescriptor_t get() const { return desc_; }

private:
    cudnnTensorDescriptor_t desc_ = nullptr;
};

// A packed filter (c_out, c_in / groups, *k) in NCHW order.
class FilterDescriptor {
public:
    FilterDescriptor(cudnnDataType_t type, const std::vector<int>& dims);
    ~FilterDescriptor();
    FilterDescriptor(const FilterDescriptor&) = delete;
    FilterDescriptor& operator=(const FilterDescriptor&) = delete;
    cudnnFilterDescriptor_t get() const { return desc_; }

private:
    cudnnFilterDescriptor_t desc_ = nullptr;
};

// Cross-correlation (Chainer's convolution) with one entry of pad, stride and dilation
// per spatial dim, `groups` groups, computing in `compute` with math type `math`.
class ConvolutionDescriptor {
public:
    ConvolutionDescriptor(const std::vector<int>& pad, const std::vector<int>& stride, const std::vector<int>& dilate,
                          int groups, cudnnDataType_t compute, cudnnMathType_t math);
    ~ConvolutionDescriptor();
    ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
    ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
    cudnnConvolutionDescriptor_t get() const { return desc_; }
    // The algorithm chosen may need another math type than asked (see conv_algorithm.cc).
    void set_math_type(cudnnMathType_t math) const;

private:
    cudnnConvolutionDescriptor_t desc_ = nullptr;
};

}  // namespace rensa::cuda
