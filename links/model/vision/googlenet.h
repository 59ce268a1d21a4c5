#pragma once
// Chainer's GoogLeNet (chainer.links.GoogLeNet): the pretrained BVLC GoogLeNet with Chainer's
// child names (conv1, conv2_reduce, conv2, inc3a .. inc5b, loss3_fc, loss1_conv, loss1_fc1,
// loss1_fc2, loss2_conv, loss2_fc1, loss2_fc2) and layer table (conv1, pool1, conv2_reduce,
// conv2, pool2, inception_3a .. inception_5b, pool5, loss3_fc, prob, and the auxiliary
// loss1_fc2 / loss2_fc2 from inception_4a / inception_4d). The fixed Linear sizes need the
// 224x224 input Chainer's prepare gives. See Note [Pretrained vision models] in
// links/model/vision/layers.h. (The GoogLeNet of Chainer's ImageNet example is ImageNetGoogLeNet.)

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/inception.h"
#include "links/connection/linear.h"
#include "links/model/vision/layers.h"

namespace rensa::links {

class GoogLeNet : public Cloneable<GoogLeNet, Chain> {
public:
    // pretrained_model: a local NPZ ("" for Chainer's LeCunUniform weights).
    explicit GoogLeNet(const std::string& pretrained_model = "");

    vision::LayerTable functions();
    std::vector<std::string> available_layers() { return vision::layer_names(functions()); }

    using Link::forward;
    // Chainer's forward(x, layers): the requested feature maps by name.
    std::map<std::string, Variable> forward(const Variable& x, const std::vector<std::string>& layers);
    // forward(x, {"prob"})["prob"].
    Variable forward(const Variable& x) override;

    std::shared_ptr<Convolution2D> conv1, conv2_reduce, conv2;
    std::shared_ptr<Inception> inc3a, inc3b, inc4a, inc4b, inc4c, inc4d, inc4e, inc5a, inc5b;
    std::shared_ptr<Linear> loss3_fc;
    std::shared_ptr<Convolution2D> loss1_conv;
    std::shared_ptr<Linear> loss1_fc1, loss1_fc2;
    std::shared_ptr<Convolution2D> loss2_conv;
    std::shared_ptr<Linear> loss2_fc1, loss2_fc2;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
