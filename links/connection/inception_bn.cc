#include "links/connection/inception_bn.h"

#include <utility>
#include <vector>

#include "core/error.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/pooling.h"

namespace rensa::links {

InceptionBN::InceptionBN(std::optional<int64_t> in_channels, int64_t out1, int64_t proj3, int64_t out3, int64_t proj33,
                         int64_t out33, std::string pooltype, std::optional<int64_t> proj_pool, int64_t stride,
                         initializers::InitializerPtr conv_init, Dtype dtype)
    : out1{out1}, proj_pool{proj_pool}, stride{stride}, pooltype{std::move(pooltype)} {
    RENSA_CHECK(this->pooltype == "max" || this->pooltype == "avg", NotImplementedError,
                "InceptionBN: pooltype must be 'max' or 'avg', got '", this->pooltype, "'");
    const auto conv = [&](std::optional<int64_t> in, int64_t out, int64_t ksize, int64_t pad, int64_t s) {
        return std::make_shared<Convolution2D>(
            in, out, ksize, Convolution2DOptions{.stride = s, .pad = pad, .nobias = true, .initialW = conv_init});
    };
    const auto bn = [&](int64_t size) {
        return std::make_shared<BatchNormalization>(size, BatchNormalizationOptions{.dtype = dtype});
    };
    register_link("proj3", &InceptionBN::proj3, conv(in_channels, proj3, 1, 0, 1));
    register_link("conv3", &InceptionBN::conv3, conv(proj3, out3, 3, 1, stride));
    register_link("proj33", &InceptionBN::proj33, conv(in_channels, proj33, 1, 0, 1));
    register_link("conv33a", &InceptionBN::conv33a, conv(proj33, out33, 3, 1, 1));
    register_link("conv33b", &InceptionBN::conv33b, conv(out33, out33, 3, 1, stride));
    register_link("proj3n", &InceptionBN::proj3n, bn(proj3));
    register_link("conv3n", &InceptionBN::conv3n, bn(out3));
    register_link("proj33n", &InceptionBN::proj33n, bn(proj33));
    register_link("conv33an", &InceptionBN::conv33an, bn(out33));
    register_link("conv33bn", &InceptionBN::conv33bn, bn(out33));
    if (out1 > 0) {
        RENSA_CHECK(stride == 1 && proj_pool.has_value(), ValueError,
                    "InceptionBN: out1 > 0 needs stride == 1 and a proj_pool, got stride=", stride,
                    proj_pool ? "" : " and no proj_pool");
        register_link("conv1", &InceptionBN::conv1, conv(in_channels, out1, 1, 0, stride));
        register_link("conv1n", &InceptionBN::conv1n, bn(out1));
    }
    if (proj_pool) {
        register_link("poolp", &InceptionBN::poolp, conv(in_channels, *proj_pool, 1, 0, 1));
        register_link("poolpn", &InceptionBN::poolpn, bn(*proj_pool));
    }
}

Variable InceptionBN::forward(const Variable& x) {
    std::vector<Variable> outs;
    if (out1 > 0) outs.push_back(F::relu((*conv1n)((*conv1)(x))));

    Variable h3 = F::relu((*proj3n)((*proj3)(x)));
    outs.push_back(F::relu((*conv3n)((*conv3)(h3))));

    Variable h33 = F::relu((*proj33n)((*proj33)(x)));
    h33 = F::relu((*conv33an)((*conv33a)(h33)));
    outs.push_back(F::relu((*conv33bn)((*conv33b)(h33))));

    Variable p = pooltype == "max" ? F::max_pooling_2d(x, 3, {.stride = stride, .pad = 1, .cover_all = false})
                                   : F::average_pooling_2d(x, 3, {.stride = stride, .pad = 1});
    if (proj_pool) p = F::relu((*poolpn)((*poolp)(p)));
    outs.push_back(std::move(p));
    return F::concat(outs, 1);
}

}  // namespace rensa::links
