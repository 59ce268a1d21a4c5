#include "links/model/vision/vgg.h"

#include "core/error.h"
#include "functions/activation.h"
#include "functions/noise.h"
#include "functions/pooling.h"
#include "links/initializers.h"

namespace rensa::links {
namespace {

struct VggInit {
    initializers::InitializerPtr W, b;
};

// Chainer's kwargs: zeros under pretrained weights (they are overwritten), else Normal(0.01) and zeros.
VggInit vgg_init(bool pretrained) {
    if (pretrained) return {std::make_shared<initializers::Zero>(), std::make_shared<initializers::Zero>()};
    return {std::make_shared<initializers::Normal>(0.01), std::make_shared<initializers::Zero>()};
}

std::shared_ptr<Convolution2D> conv(int64_t in, int64_t out, const VggInit& init) {
    return std::make_shared<Convolution2D>(
        in, out, 3, Convolution2DOptions{.stride = 1, .pad = 1, .initialW = init.W, .initial_bias = init.b});
}

std::shared_ptr<Linear> linear(int64_t in, int64_t out, const VggInit& init) {
    return std::make_shared<Linear>(in, out, false, init.W, init.b);
}

Variable relu(const Variable& x) { return F::relu(x); }
Variable pool(const Variable& x) { return F::max_pooling_2d(x, 2); }
Variable dropout(const Variable& x) { return F::dropout(x); }
Variable softmax(const Variable& x) { return F::softmax(x); }

}  // namespace

VGGLayers::VGGLayers(const std::string& pretrained_model, int n_layers) : n_layers_(n_layers) {
    RENSA_CHECK(n_layers == 16 || n_layers == 19, ValueError,
                "VGGLayers: Expect: n_layers in (16, 19), Actual: n_layers = ", n_layers);
    vision::check_pretrained(name(), pretrained_model);
    const VggInit init = vgg_init(!pretrained_model.empty());
    register_link("conv1_1", &VGGLayers::conv1_1, conv(3, 64, init));
    register_link("conv1_2", &VGGLayers::conv1_2, conv(64, 64, init));
    register_link("conv2_1", &VGGLayers::conv2_1, conv(64, 128, init));
    register_link("conv2_2", &VGGLayers::conv2_2, conv(128, 128, init));
    register_link("conv3_1", &VGGLayers::conv3_1, conv(128, 256, init));
    register_link("conv3_2", &VGGLayers::conv3_2, conv(256, 256, init));
    register_link("conv3_3", &VGGLayers::conv3_3, conv(256, 256, init));
    register_link("conv4_1", &VGGLayers::conv4_1, conv(256, 512, init));
    register_link("conv4_2", &VGGLayers::conv4_2, conv(512, 512, init));
    register_link("conv4_3", &VGGLayers::conv4_3, conv(512, 512, init));
    register_link("conv5_1", &VGGLayers::conv5_1, conv(512, 512, init));
    register_link("conv5_2", &VGGLayers::conv5_2, conv(512, 512, init));
    register_link("conv5_3", &VGGLayers::conv5_3, conv(512, 512, init));
    register_link("fc6", &VGGLayers::fc6, linear(512 * 7 * 7, 4096, init));
    register_link("fc7", &VGGLayers::fc7, linear(4096, 4096, init));
    register_link("fc8", &VGGLayers::fc8, linear(4096, 1000, init));
    if (n_layers == 19) {
        register_link("conv3_4", &VGGLayers::conv3_4, conv(256, 256, init));
        register_link("conv4_4", &VGGLayers::conv4_4, conv(512, 512, init));
        register_link("conv5_4", &VGGLayers::conv5_4, conv(512, 512, init));
    }
    vision::load_pretrained(*this, name(), pretrained_model);
}

vision::LayerTable VGGLayers::functions() {
    // A convolution (its shared_ptr captured, so a table never dangles) and ReLU.
    auto conv_relu = [](const std::string& name, std::shared_ptr<Convolution2D> c) {
        return vision::LayerEntry{name, {[c](const Variable& x) { return (*c)(x); }, relu}};
    };
    auto fc = [](const std::string& name, std::shared_ptr<Linear> l, bool hidden) {
        vision::LayerEntry entry{name, {[l](const Variable& x) { return (*l)(x); }}};
        if (hidden) entry.functions.insert(entry.functions.end(), {relu, dropout});
        return entry;
    };
    const bool deep = n_layers_ == 19;
    vision::LayerTable table{
        conv_relu("conv1_1", conv1_1), conv_relu("conv1_2", conv1_2), {"pool1", {pool}},
        conv_relu("conv2_1", conv2_1), conv_relu("conv2_2", conv2_2), {"pool2", {pool}},
        conv_relu("conv3_1", conv3_1), conv_relu("conv3_2", conv3_2), conv_relu("conv3_3", conv3_3)};
    if (deep) table.push_back(conv_relu("conv3_4", conv3_4));
    table.push_back({"pool3", {pool}});
    for (auto& entry : {conv_relu("conv4_1", conv4_1), conv_relu("conv4_2", conv4_2), conv_relu("conv4_3", conv4_3)})
        table.push_back(entry);
    if (deep) table.push_back(conv_relu("conv4_4", conv4_4));
    table.push_back({"pool4", {pool}});
    for (auto& entry : {conv_relu("conv5_1", conv5_1), conv_relu("conv5_2", conv5_2), conv_relu("conv5_3", conv5_3)})
        table.push_back(entry);
    if (deep) table.push_back(conv_relu("conv5_4", conv5_4));
    table.push_back({"pool5", {pool}});
    table.push_back(fc("fc6", fc6, true));
    table.push_back(fc("fc7", fc7, true));
    table.push_back(fc("fc8", fc8, false));
    table.push_back({"prob", {softmax}});
    return table;
}

std::map<std::string, Variable> VGGLayers::forward(const Variable& x, const std::vector<std::string>& layers) {
    return vision::forward_layers(name(), functions(), x, layers);
}

Variable VGGLayers::forward(const Variable& x) { return forward(x, {"prob"}).at("prob"); }

}  // namespace rensa::links
