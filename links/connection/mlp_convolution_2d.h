#pragma once
// MLPConvolution2D (chainer.links.MLPConvolution2D): a ChainList of Convolution2D layers,
// the first with the given ksize and the rest 1x1, with an activation between them (the
// "mlpconv" of Network in Network).

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "functions/activation.h"
#include "functions/connection.h"
#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/initializer.h"

namespace rensa::links {

// Chainer's keyword arguments of MLPConvolution2D, in its order.
struct MLPConvolution2DOptions {
    F::IntOrTuple stride = 1;  // of the first convolution
    F::IntOrTuple pad = 0;     // of the first convolution
    std::function<Variable(const Variable&)> activation = [](const Variable& x) { return F::relu(x); };
    initializers::InitializerPtr conv_init{};  // every W; null: LeCunNormal
    initializers::InitializerPtr bias_init{};  // every b; null: zeros
};

class MLPConvolution2D : public Cloneable<MLPConvolution2D, ChainList> {
public:
    // Chainer's MLPConvolution2D(in_channels, out_channels, ksize, ...): children "0", "1",
    // ... are Convolution2D(in_channels, out_channels[0], ksize, stride, pad) then
    // Convolution2D(out_channels[i - 1], out_channels[i], 1). in_channels nullopt: learnt
    // from x. ValueError when out_channels is empty.
    MLPConvolution2D(std::optional<int64_t> in_channels, const std::vector<int64_t>& out_channels, F::IntOrTuple ksize,
                     const MLPConvolution2DOptions& options = {});
    // Chainer's MLPConvolution2D(out_channels, ksize): in_channels learnt from x.
    MLPConvolution2D(const std::vector<int64_t>& out_channels, F::IntOrTuple ksize,
                     const MLPConvolution2DOptions& options = {})
        : MLPConvolution2D(std::nullopt, out_channels, std::move(ksize), options) {}

    using Link::forward;
    // The convolutions in order, activation after each but the last.
    Variable forward(const Variable& x) override;

private:
    std::function<Variable(const Variable&)> activation_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
