#pragma once
// Chainer's sampling-filter initializers (chainer.initializers.UpsamplingDeconvFilter and
// DownsamplingConvFilter, from Berkeley FCN's surgery.py): a bilinear kernel on the
// diagonal of the first two axes. Chainer 7.8.1 knows only interpolation="linear".

#include <optional>
#include <string>

#include "links/initializer.h"

namespace rensa::initializers {

// array[i, i, ...] (array[i, 0, ...] when shape[1] == 1) = the separable linear kernel
// prod_d (1 - |k_d - center| / factor), factor = (ksize + 1) / 2, center = factor - 1 for
// an odd ksize, factor - 0.5 for an even one; every other element is 0. Downsampling
// normalises the kernel to sum to 1. Throws DimensionError below 3 dims, ValueError when
// shape[1] is neither shape[0] nor 1 or the spatial sizes differ, DtypeError when the
// initializer's dtype is not the array's.
class SamplingFilter : public Initializer {
public:
    void operator()(const Array& array) const override;
    const std::string& interpolation() const { return interpolation_; }

protected:
    SamplingFilter(const char* name, bool upsampling, std::string interpolation, std::optional<Dtype> dtype);

private:
    const char* name_;
    bool upsampling_;
    std::string interpolation_;
};

// Chainer's initial weight for a DeconvolutionND with stride (ksize + 1) / 2. interpolation
// must be "linear" (ValueError otherwise).
class UpsamplingDeconvFilter : public SamplingFilter {
public:
    explicit UpsamplingDeconvFilter(std::string interpolation = "linear", std::optional<Dtype> dtype = std::nullopt);
};

// Chainer's initial weight for a ConvolutionND with stride (ksize + 1) / 2: the kernel sums
// to 1. interpolation must be "linear" (ValueError otherwise).
class DownsamplingConvFilter : public SamplingFilter {
public:
    explicit DownsamplingConvFilter(std::string interpolation = "linear", std::optional<Dtype> dtype = std::nullopt);
};

}  // namespace rensa::initializers
