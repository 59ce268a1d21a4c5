#include "links/connection/inception.h"

#include <utility>

#include "functions/activation.h"
#include "functions/array.h"
#include "functions/pooling.h"

namespace rensa::links {

Inception::Inception(std::optional<int64_t> in_channels, int64_t out1, int64_t proj3, int64_t out3, int64_t proj5,
                     int64_t out5, int64_t proj_pool, initializers::InitializerPtr conv_init,
                     initializers::InitializerPtr bias_init) {
    const auto conv = [&](std::optional<int64_t> in, int64_t out, int64_t ksize, int64_t pad) {
        return std::make_shared<Convolution2D>(
            in, out, ksize, Convolution2DOptions{.pad = pad, .initialW = conv_init, .initial_bias = bias_init});
    };
    register_link("conv1", &Inception::conv1, conv(in_channels, out1, 1, 0));
    register_link("proj3", &Inception::proj3, conv(in_channels, proj3, 1, 0));
    register_link("conv3", &Inception::conv3, conv(proj3, out3, 3, 1));
    register_link("proj5", &Inception::proj5, conv(in_channels, proj5, 1, 0));
    register_link("conv5", &Inception::conv5, conv(proj5, out5, 5, 2));
    register_link("projp", &Inception::projp, conv(in_channels, proj_pool, 1, 0));
}

Variable Inception::forward(const Variable& x) {
    Variable out1 = (*conv1)(x);
    Variable out3 = (*conv3)(F::relu((*proj3)(x)));
    Variable out5 = (*conv5)(F::relu((*proj5)(x)));
    Variable pool = (*projp)(F::max_pooling_2d(x, 3, {.stride = 1, .pad = 1}));
    return F::relu(F::concat({std::move(out1), std::move(out3), std::move(out5), std::move(pool)}, 1));
}

}  // namespace rensa::links
