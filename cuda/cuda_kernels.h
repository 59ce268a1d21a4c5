#pragma once
// CudaKernels: the Kernels contract (core/kernels.h) on one GPU. Each family lives in
// its own file of this folder (kernels_<family>.cu, or .cc for library calls). Every
// method opens a DeviceGuard for its device, launches on current_stream(device) (see
// Note [Streams] in cuda/stream.h), checks each launch, and never synchronises the device.
// Scratch memory (workspaces, contiguous copies) comes from caching_allocator(device).

#include "core/kernels.h"

namespace rensa::cuda {

class CudaKernels final : public Kernels {
public:
    explicit CudaKernels(int device) : device_{device} {}
    int device() const { return device_; }

    void copy(const Array& src, const Array& dst) override;                               // kernels_elementwise.cu
    void fill(const Array& dst, Scalar value) override;                                   // kernels_elementwise.cu
    void unary(UnaryOp op, const Array& x, const Array& out) override;                    // kernels_unary.cu
    void binary(BinaryOp op, const Array& a, const Array& b, const Array& out) override;  // kernels_binary.cu
    void binary_scalar(BinaryOp op, const Array& a, Scalar s, bool reversed, const Array& out) override;
    void where(const Array& cond, const Array& a, const Array& b, const Array& out) override;  // kernels_where.cu
    void reduce(ReduceOp op, const Array& x, const Axes& axes, const Array& out) override;     // kernels_reduce.cu
    void arg_reduce(ArgReduceOp op, const Array& x, int axis, const Array& out) override;      // kernels_reduce.cu
    void cumsum(const Array& x, int axis, const Array& out) override;                          // kernels_scan.cu
    void gemm(const GemmArgs& args) override;                                                  // kernels_gemm.cc
    void take(const TakeArgs& args) override;                                                  // kernels_indexing.cu
    void scatter_add(const ScatterAddArgs& args) override;                                     // kernels_indexing.cu
    void random(const RandomArgs& args) override;                                              // kernels_random.cu
    void sort(const SortArgs& args) override;                                                  // kernels_sort.cu
    void convolution(const ConvolutionArgs& args) override;                                    // kernels_conv.cc
    void convolution_backward_data(const ConvolutionBackwardDataArgs& args) override;          // kernels_conv.cc
    void convolution_backward_filter(const ConvolutionBackwardFilterArgs& args) override;      // kernels_conv.cc
    void pool(const PoolArgs& args) override;                                                  // kernels_pool.cu
    void pool_backward(const PoolBackwardArgs& args) override;                                 // kernels_pool.cu
    void roi_pool(const RoiPoolArgs& args) override;                                           // kernels_roi.cu
    void roi_pool_backward(const RoiPoolBackwardArgs& args) override;                          // kernels_roi.cu
    void softmax(const SoftmaxArgs& args) override;                                            // kernels_softmax.cu
    void batch_norm(const BatchNormArgs& args) override;                                       // kernels_norm.cu
    void batch_norm_backward(const BatchNormBackwardArgs& args) override;                      // kernels_norm.cu
    void fused_update(std::span<const FusedUpdateArgs> updates) override;  // kernels_fused_update.cu

private:
    int device_;
};

}  // namespace rensa::cuda
