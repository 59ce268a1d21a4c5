#pragma once
// Chainer's ResNetLayers (chainer.links.ResNet50Layers / ResNet101Layers / ResNet152Layers) and
// its blocks (chainer.links.model.vision.resnet.BuildingBlock, BottleneckA, BottleneckB), with
// Chainer's child names: conv1, bn1, res2 .. res5 (BuildingBlocks of children a, b1, b2, ...),
// fc6; and Chainer's layer table (conv1, pool1, res2 .. res5, pool5, fc6, prob). See Note
// [Pretrained vision models] in links/model/vision/layers.h.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"
#include "links/initializer.h"
#include "links/model/vision/layers.h"
#include "links/normalization/batch_normalization.h"

namespace rensa::links {
namespace resnet {

// 1x1 -> 3x3 -> 1x1 convolutions (no bias) with batch normalization, plus a strided 1x1
// projection (conv4, bn4) of x. The stride is on the first 1x1 (Chainer's default) or, with
// downsample_fb, on the 3x3 (fb.resnet.torch). initialW null: Convolution2D's default.
class BottleneckA : public Cloneable<BottleneckA, Chain> {
public:
    BottleneckA(int64_t in_channels, int64_t mid_channels, int64_t out_channels, int64_t stride = 2,
                initializers::InitializerPtr initialW = nullptr, bool downsample_fb = false);
    using Link::forward;
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1, conv2, conv3, conv4;
    std::shared_ptr<BatchNormalization> bn1, bn2, bn3, bn4;
};

// The same three convolutions with an identity shortcut (in_channels in and out).
class BottleneckB : public Cloneable<BottleneckB, Chain> {
public:
    BottleneckB(int64_t in_channels, int64_t mid_channels, initializers::InitializerPtr initialW = nullptr);
    using Link::forward;
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1, conv2, conv3;
    std::shared_ptr<BatchNormalization> bn1, bn2, bn3;
};

// A BottleneckA named "a", then n_layers - 1 BottleneckBs named "b1", "b2", ...; ValueError
// for n_layers < 1.
class BuildingBlock : public Cloneable<BuildingBlock, Chain> {
public:
    BuildingBlock(int n_layers, int64_t in_channels, int64_t mid_channels, int64_t out_channels, int64_t stride,
                  initializers::InitializerPtr initialW = nullptr, bool downsample_fb = false);
    using Link::forward;
    Variable forward(const Variable& x) override;
};

}  // namespace resnet

class ResNetLayers : public Cloneable<ResNetLayers, Chain> {
public:
    // pretrained_model: a local NPZ ("" for Chainer's HeNormal convolutions); n_layers 50, 101
    // or 152 (ValueError otherwise). Any input of at least 32x32 reaches pool5 (global pooling).
    explicit ResNetLayers(const std::string& pretrained_model = "", int n_layers = 50, bool downsample_fb = false);

    // "ResNet50Layers", "ResNet101Layers" or "ResNet152Layers": the name errors use.
    std::string name() const { return "ResNet" + std::to_string(n_layers_) + "Layers"; }
    int n_layers() const { return n_layers_; }
    vision::LayerTable functions();
    std::vector<std::string> available_layers() { return vision::layer_names(functions()); }

    using Link::forward;
    // Chainer's forward(x, layers): the requested feature maps by name.
    std::map<std::string, Variable> forward(const Variable& x, const std::vector<std::string>& layers);
    // forward(x, {"prob"})["prob"].
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1;
    std::shared_ptr<BatchNormalization> bn1;
    std::shared_ptr<resnet::BuildingBlock> res2, res3, res4, res5;
    std::shared_ptr<Linear> fc6;

private:
    int n_layers_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
