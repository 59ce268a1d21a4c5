// UpsamplingDeconvFilter and DownsamplingConvFilter: the kernel is built on the host in
// float64 (it depends on the shape only, as Chainer's numpy kernel), then cast into the array.
#include "links/initializers/sampling.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/error.h"
#include "links/initializers/check.h"

namespace rensa::initializers {
namespace {

// The separable linear kernel of `ndim` dims of size `ksize` (row-major), Chainer's
// _get_linear_filter; normalised to sum 1 when not upsampling.
std::vector<double> linear_filter(int64_t ksize, int64_t ndim, bool upsampling) {
    const int64_t factor = (ksize + 1) / 2;
    const double center = ksize % 2 == 1 ? static_cast<double>(factor) - 1.0 : static_cast<double>(factor) - 0.5;
    std::vector<double> along(static_cast<size_t>(ksize));
    for (int64_t k = 0; k < ksize; ++k) {
        along[static_cast<size_t>(k)] = 1.0 - std::abs(static_cast<double>(k) - center) / static_cast<double>(factor);
    }
    std::vector<double> filter{1.0};
    for (int64_t d = 0; d < ndim; ++d) {
        std::vector<double> next;
        next.reserve(filter.size() * along.size());
        for (double f : filter) {
            for (double a : along) next.push_back(f * a);
        }
        filter = std::move(next);
    }
    if (!upsampling) {
        double sum = 0.0;
        for (double f : filter) sum += f;
        for (double& f : filter) f /= sum;
    }
    return filter;
}

}  // namespace

SamplingFilter::SamplingFilter(const char* name, bool upsampling, std::string interpolation, std::optional<Dtype> dtype)
    : Initializer(dtype), name_{name}, upsampling_{upsampling}, interpolation_{std::move(interpolation)} {
    RENSA_CHECK(interpolation_ == "linear", ValueError, name_, ": Expect: interpolation == 'linear', Actual: '",
                interpolation_, "' (unsupported interpolation method)");
}

void SamplingFilter::operator()(const Array& array) const {
    detail::check_dtype(*this, array, name_);
    const Shape& shape = array.shape();
    RENSA_CHECK(array.ndim() >= 3, DimensionError, name_,
                ": Expect: array.ndim >= 3 (two channel axes and the kernel's), Actual: shape ", shape);
    const int64_t in_c = shape[0];
    const int64_t out_c = shape[1];
    RENSA_CHECK(in_c == out_c || out_c == 1, ValueError, name_,
                ": Expect: shape[0] == shape[1] or shape[1] == 1, Actual: shape ", shape);
    const int64_t ksize = shape[2];
    for (int64_t d = 3; d < array.ndim(); ++d) {
        RENSA_CHECK(shape[d] == ksize, ValueError, name_, ": Expect: the kernel sizes all the same, Actual: shape ",
                    shape, " (ksize must be all same: ", ksize, " != ", shape[d], ")");
    }
    std::vector<double> values(static_cast<size_t>(array.size()), 0.0);
    if (!values.empty()) {
        const std::vector<double> filter = linear_filter(ksize, array.ndim() - 2, upsampling_);
        const int64_t kernel = static_cast<int64_t>(filter.size());
        for (int64_t i = 0; i < in_c; ++i) {
            const int64_t o = out_c == 1 ? 0 : i;
            std::copy(filter.begin(), filter.end(), values.begin() + (i * out_c + o) * kernel);
        }
    }
    array.assign(Array::from_vector(values, shape, Device::native()).to_device(array.device()));
}

UpsamplingDeconvFilter::UpsamplingDeconvFilter(std::string interpolation, std::optional<Dtype> dtype)
    : SamplingFilter("UpsamplingDeconvFilter", true, std::move(interpolation), dtype) {}

DownsamplingConvFilter::DownsamplingConvFilter(std::string interpolation, std::optional<Dtype> dtype)
    : SamplingFilter("DownsamplingConvFilter", false, std::move(interpolation), dtype) {}

}  // namespace rensa::initializers
