#include "links/model/vision/cifar_vgg16.h"

#include <optional>

#include "functions/activation.h"
#include "functions/noise.h"
#include "functions/pooling.h"

namespace rensa::links {
namespace cifar_vgg {

Block::Block(int64_t out_channels, int64_t ksize, int64_t pad) {
    register_link("conv", &Block::conv,
                  std::make_shared<Convolution2D>(std::nullopt, out_channels, ksize,
                                                  Convolution2DOptions{.pad = pad, .nobias = true}));
    register_link("bn", &Block::bn, std::make_shared<BatchNormalization>(out_channels));
}

Variable Block::forward(const Variable& x) { return F::relu((*bn)((*conv)(x))); }

}  // namespace cifar_vgg

CifarVGG16::CifarVGG16(int64_t class_labels) {
    const auto block = [](int64_t out_channels) { return std::make_shared<cifar_vgg::Block>(out_channels, 3); };
    register_link("block1_1", &CifarVGG16::block1_1, block(64));
    register_link("block1_2", &CifarVGG16::block1_2, block(64));
    register_link("block2_1", &CifarVGG16::block2_1, block(128));
    register_link("block2_2", &CifarVGG16::block2_2, block(128));
    register_link("block3_1", &CifarVGG16::block3_1, block(256));
    register_link("block3_2", &CifarVGG16::block3_2, block(256));
    register_link("block3_3", &CifarVGG16::block3_3, block(256));
    register_link("block4_1", &CifarVGG16::block4_1, block(512));
    register_link("block4_2", &CifarVGG16::block4_2, block(512));
    register_link("block4_3", &CifarVGG16::block4_3, block(512));
    register_link("block5_1", &CifarVGG16::block5_1, block(512));
    register_link("block5_2", &CifarVGG16::block5_2, block(512));
    register_link("block5_3", &CifarVGG16::block5_3, block(512));
    register_link("fc1", &CifarVGG16::fc1, std::make_shared<Linear>(std::nullopt, 512, /*nobias=*/true));
    register_link("bn_fc1", &CifarVGG16::bn_fc1, std::make_shared<BatchNormalization>(512));
    register_link("fc2", &CifarVGG16::fc2, std::make_shared<Linear>(std::nullopt, class_labels, /*nobias=*/true));
}

Variable CifarVGG16::forward(const Variable& x) {
    const auto pool = [](const Variable& h) { return F::max_pooling_2d(h, 2, {.stride = 2}); };
    // 64 channel blocks
    Variable h = pool((*block1_2)(F::dropout((*block1_1)(x), 0.3)));
    // 128 channel blocks
    h = pool((*block2_2)(F::dropout((*block2_1)(h), 0.4)));
    // 256 channel blocks
    h = F::dropout((*block3_2)(F::dropout((*block3_1)(h), 0.4)), 0.4);
    h = pool((*block3_3)(h));
    // 512 channel blocks
    h = F::dropout((*block4_2)(F::dropout((*block4_1)(h), 0.4)), 0.4);
    h = pool((*block4_3)(h));
    // 512 channel blocks
    h = F::dropout((*block5_2)(F::dropout((*block5_1)(h), 0.4)), 0.4);
    h = pool((*block5_3)(h));

    h = (*fc1)(F::dropout(h, 0.5));
    h = F::dropout(F::relu((*bn_fc1)(h)), 0.5);
    return (*fc2)(h);
}

}  // namespace rensa::links
