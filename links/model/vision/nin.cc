#include "links/model/vision/nin.h"

#include <optional>

#include "functions/activation.h"
#include "functions/array.h"
#include "functions/noise.h"
#include "functions/pooling.h"
#include "links/initializers.h"

namespace rensa::links {

NIN::NIN(int64_t n_class) : n_class{n_class} {
    const initializers::InitializerPtr conv_init = std::make_shared<initializers::HeNormal>();  // MSRA scaling
    const auto mlpconv = [&](std::vector<int64_t> out_channels, int64_t ksize, int64_t stride, int64_t pad) {
        return std::make_shared<MLPConvolution2D>(
            std::nullopt, std::move(out_channels), ksize,
            MLPConvolution2DOptions{.stride = stride, .pad = pad, .conv_init = conv_init});
    };
    register_link("mlpconv1", &NIN::mlpconv1, mlpconv({96, 96, 96}, 11, 4, 0));
    register_link("mlpconv2", &NIN::mlpconv2, mlpconv({256, 256, 256}, 5, 1, 2));
    register_link("mlpconv3", &NIN::mlpconv3, mlpconv({384, 384, 384}, 3, 1, 1));
    register_link("mlpconv4", &NIN::mlpconv4, mlpconv({1024, 1024, n_class}, 3, 1, 1));
}

Variable NIN::forward(const Variable& x) {
    const auto pool = [](const Variable& h) { return F::max_pooling_2d(h, 3, {.stride = 2}); };
    Variable h = pool(F::relu((*mlpconv1)(x)));
    h = pool(F::relu((*mlpconv2)(h)));
    h = pool(F::relu((*mlpconv3)(h)));
    h = (*mlpconv4)(F::dropout(h));
    return F::reshape(F::average_pooling_2d(h, 6), {x.shape()[0], n_class});
}

}  // namespace rensa::links
