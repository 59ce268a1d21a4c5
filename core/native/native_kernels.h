#pragma once
// NativeKernels: the Kernels contract on the CPU. Each family lives in its own file
// (kernels_<family>.cc) of this folder.

#include "core/kernels.h"

namespace rensa::native {

class NativeKernels final : public Kernels {
public:
    void copy(const Array& src, const Array& dst) override;                               // kernels_copy.cc
    void fill(const Array& dst, Scalar value) override;                                   // kernels_copy.cc
    void unary(UnaryOp op, const Array& x, const Array& out) override;                    // kernels_unary.cc
    void binary(BinaryOp op, const Array& a, const Array& b, const Array& out) override;  // kernels_binary.cc
    void binary_scalar(BinaryOp op, const Array& a, Scalar s, bool reversed, const Array& out) override;
    void where(const Array& cond, const Array& a, const Array& b, const Array& out) override;  // kernels_where.cc
    void reduce(ReduceOp op, const Array& x, const Axes& axes, const Array& out) override;     // kernels_reduce.cc
    void arg_reduce(ArgReduceOp op, const Array& x, int axis, const Array& out) override;      // kernels_reduce.cc
    void cumsum(const Array& x, int axis, const Array& out) override;                          // kernels_scan.cc
    void gemm(const GemmArgs& args) override;                                                  // kernels_gemm.cc
    void take(const TakeArgs& args) override;                                                  // kernels_indexing.cc
    void scatter_add(const ScatterAddArgs& args) override;                                     // kernels_indexing.cc
    void random(const RandomArgs& args) override;                                              // kernels_random.cc
    void sort(const SortArgs& args) override;                                                  // kernels_sort.cc
    void convolution(const ConvolutionArgs& args) override;                                    // kernels_conv.cc
    void convolution_backward_data(const ConvolutionBackwardDataArgs& args) override;          // kernels_conv.cc
    void convolution_backward_filter(const ConvolutionBackwardFilterArgs& args) override;      // kernels_conv.cc
    void pool(const PoolArgs& args) override;                                                  // kernels_pool.cc
    void pool_backward(const PoolBackwardArgs& args) override;                                 // kernels_pool.cc
    void roi_pool(const RoiPoolArgs& args) override;                                           // kernels_roi.cc
    void roi_pool_backward(const RoiPoolBackwardArgs& args) override;                          // kernels_roi.cc
    void softmax(const SoftmaxArgs& args) override;                                            // kernels_softmax.cc
    void batch_norm(const BatchNormArgs& args) override;                                       // kernels_norm.cc
    void batch_norm_backward(const BatchNormBackwardArgs& args) override;                      // kernels_norm.cc
    void fused_update(std::span<const FusedUpdateArgs> updates) override;  // kernels_fused_update.cc
};

}  // namespace rensa::native
