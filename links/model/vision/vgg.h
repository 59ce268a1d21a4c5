#pragma once
// Chainer's VGGLayers (chainer.links.VGG16Layers / VGG19Layers): the ImageNet VGG of Simonyan
// and Zisserman with Chainer's child names conv1_1 .. conv5_3 (conv3_4, conv4_4, conv5_4 for
// 19 layers), fc6, fc7, fc8, and Chainer's layer table (conv*, pool1..pool5, fc6, fc7, fc8,
// prob). See Note [Pretrained vision models] in links/model/vision/layers.h.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/linear.h"
#include "links/model/vision/layers.h"

namespace rensa::links {

class VGGLayers : public Cloneable<VGGLayers, Chain> {
public:
    // pretrained_model: a local NPZ ("" for Chainer's Normal(0.01) weights and zero biases);
    // n_layers 16 or 19 (ValueError otherwise). fc6 takes 512 * 7 * 7 features: the 224x224
    // input Chainer's prepare gives.
    explicit VGGLayers(const std::string& pretrained_model = "", int n_layers = 16);

    // "VGG16Layers" or "VGG19Layers": the name errors use.
    std::string name() const { return n_layers_ == 16 ? "VGG16Layers" : "VGG19Layers"; }
    int n_layers() const { return n_layers_; }
    // Chainer's `functions` table and available_layers.
    vision::LayerTable functions();
    std::vector<std::string> available_layers() { return vision::layer_names(functions()); }

    using Link::forward;
    // Chainer's forward(x, layers): the requested feature maps by name (see forward_layers).
    std::map<std::string, Variable> forward(const Variable& x, const std::vector<std::string>& layers);
    // forward(x, {"prob"})["prob"]: the class probabilities.
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1_1, conv1_2, conv2_1, conv2_2, conv3_1, conv3_2, conv3_3, conv3_4, conv4_1,
        conv4_2, conv4_3, conv4_4, conv5_1, conv5_2, conv5_3, conv5_4;  // conv*_4: 19 layers only
    std::shared_ptr<Linear> fc6, fc7, fc8;

private:
    int n_layers_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
