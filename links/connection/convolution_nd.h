#pragma once
// ConvolutionND (chainer.links.ConvolutionND): an N-dimensional convolution layer (1 to 3
// spatial dims) over F::convolution_nd, and the checks every convolution link shares.

#include <cstdint>
#include <optional>
#include <utility>

#include "functions/connection.h"
#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of ConvolutionND, in its order.
struct ConvolutionNDOptions {
    F::IntOrTuple stride = 1;
    F::IntOrTuple pad = 0;
    bool nobias = false;
    initializers::InitializerPtr initialW{};      // null: LeCunNormal
    initializers::InitializerPtr initial_bias{};  // null: zeros
    bool cover_all = false;
    F::IntOrTuple dilate = 1;
    int64_t groups = 1;
};

class ConvolutionND : public Cloneable<ConvolutionND> {
public:
    Parameter W;  // (out_channels, in_channels / groups, *ksize)
    Parameter b;  // (out_channels,); undefined (None) with nobias

    // Chainer's ConvolutionND(ndim, in_channels, out_channels, ksize, ...). in_channels
    // nullopt: W is created at the first forward from x.shape[1]. ValueError when ksize has
    // the wrong length or the channels are not divisible by groups.
    ConvolutionND(int ndim, std::optional<int64_t> in_channels, int64_t out_channels, F::IntOrTuple ksize,
                  const ConvolutionNDOptions& options = {});
    ConvolutionND(int ndim, int64_t in_channels, int64_t out_channels, F::IntOrTuple ksize,
                  const ConvolutionNDOptions& options = {})
        : ConvolutionND(ndim, std::optional<int64_t>{in_channels}, out_channels, std::move(ksize), options) {}
    // Chainer's ConvolutionND(ndim, out_channels, ksize): in_channels learnt from x.
    // GCC 12 binds a braced list with a single designator as ksize of the constructor above
    // (ConvolutionND(2, 4, 3, {.pad = 1}) gives ksize 1): with one option, spell in_channels as
    // std::nullopt.
    ConvolutionND(int ndim, int64_t out_channels, F::IntOrTuple ksize, const ConvolutionNDOptions& options = {})
        : ConvolutionND(ndim, std::nullopt, out_channels, std::move(ksize), options) {}

    using Link::forward;
    // F::convolution_nd(x, W, b, ...); DimensionError naming ConvolutionND when x is not
    // (n, in_channels, *spatial).
    Variable forward(const Variable& x) override;

    int ndim() const { return static_cast<int>(ksize_.size()); }
    int64_t out_channels() const { return out_channels_; }

private:
    void initialize_params(int64_t in_channels);

    int64_t out_channels_;
    Shape ksize_;
    F::ConvolutionOptions conv_;
};

namespace detail {
// Chainer's _initialize_params checks: channels divisible by groups (ValueError naming link).
void check_groups(const char* link, int64_t in_channels, int64_t out_channels, int64_t groups);
// ndim when >= 1 (ValueError naming link otherwise).
int checked_ndim(const char* link, int ndim);
// x.shape[1] of an input that must have rank 2 + spatial_ndim (DimensionError naming link).
int64_t input_channels(const char* link, const Variable& x, int spatial_ndim);
// DimensionError naming link when x has `channels` channels and W expects `expected`.
void check_input_channels(const char* link, int64_t channels, int64_t expected);
// Chainer's defaults for null initializers: LeCunNormal for weights, zeros for biases.
initializers::InitializerPtr default_weight(initializers::InitializerPtr initialW);
initializers::InitializerPtr default_bias(initializers::InitializerPtr initial_bias);
}  // namespace detail

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
