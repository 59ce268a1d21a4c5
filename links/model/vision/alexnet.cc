#include "links/model/vision/alexnet.h"

#include <optional>

#include "functions/activation.h"
#include "functions/noise.h"
#include "functions/normalization.h"
#include "functions/pooling.h"

namespace rensa::links {
namespace {

std::shared_ptr<Convolution2D> conv(int64_t out, int64_t ksize, int64_t stride, int64_t pad) {
    return std::make_shared<Convolution2D>(std::nullopt, out, ksize,
                                           Convolution2DOptions{.stride = stride, .pad = pad});
}

}  // namespace

Alex::Alex(int64_t n_class) {
    register_link("conv1", &Alex::conv1, conv(96, 11, 4, 0));
    register_link("conv2", &Alex::conv2, conv(256, 5, 1, 2));
    register_link("conv3", &Alex::conv3, conv(384, 3, 1, 1));
    register_link("conv4", &Alex::conv4, conv(384, 3, 1, 1));
    register_link("conv5", &Alex::conv5, conv(256, 3, 1, 1));
    register_link("fc6", &Alex::fc6, std::make_shared<Linear>(std::nullopt, 4096));
    register_link("fc7", &Alex::fc7, std::make_shared<Linear>(std::nullopt, 4096));
    register_link("fc8", &Alex::fc8, std::make_shared<Linear>(std::nullopt, n_class));
}

Variable Alex::forward(const Variable& x) {
    const auto pool = [](const Variable& h) { return F::max_pooling_2d(h, 3, {.stride = 2}); };
    Variable h = pool(F::local_response_normalization(F::relu((*conv1)(x))));
    h = pool(F::local_response_normalization(F::relu((*conv2)(h))));
    h = F::relu((*conv3)(h));
    h = F::relu((*conv4)(h));
    h = pool(F::relu((*conv5)(h)));
    h = F::dropout(F::relu((*fc6)(h)));
    h = F::dropout(F::relu((*fc7)(h)));
    return (*fc8)(h);
}

}  // namespace rensa::links
