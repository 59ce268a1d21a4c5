#include "links/model/vision/imagenet_googlenet.h"

#include <optional>

#include "core/error.h"
#include "core/reporter.h"
#include "functions/activation.h"
#include "functions/evaluation.h"
#include "functions/loss.h"
#include "functions/math.h"
#include "functions/noise.h"
#include "functions/normalization.h"
#include "functions/pooling.h"

namespace rensa::links {
namespace {

std::shared_ptr<Convolution2D> conv(int64_t out, int64_t ksize, int64_t stride = 1, int64_t pad = 0) {
    return std::make_shared<Convolution2D>(std::nullopt, out, ksize,
                                           Convolution2DOptions{.stride = stride, .pad = pad});
}
std::shared_ptr<Inception> inception(int64_t out1, int64_t proj3, int64_t out3, int64_t proj5, int64_t out5,
                                     int64_t proj_pool) {
    return std::make_shared<Inception>(std::nullopt, out1, proj3, out3, proj5, out5, proj_pool);
}
std::shared_ptr<Linear> linear(int64_t out) { return std::make_shared<Linear>(std::nullopt, out); }

}  // namespace

ImageNetGoogLeNet::ImageNetGoogLeNet(int64_t n_class) {
    register_link("conv1", &ImageNetGoogLeNet::conv1, conv(64, 7, 2, 3));
    register_link("conv2_reduce", &ImageNetGoogLeNet::conv2_reduce, conv(64, 1));
    register_link("conv2", &ImageNetGoogLeNet::conv2, conv(192, 3, 1, 1));
    register_link("inc3a", &ImageNetGoogLeNet::inc3a, inception(64, 96, 128, 16, 32, 32));
    register_link("inc3b", &ImageNetGoogLeNet::inc3b, inception(128, 128, 192, 32, 96, 64));
    register_link("inc4a", &ImageNetGoogLeNet::inc4a, inception(192, 96, 208, 16, 48, 64));
    register_link("inc4b", &ImageNetGoogLeNet::inc4b, inception(160, 112, 224, 24, 64, 64));
    register_link("inc4c", &ImageNetGoogLeNet::inc4c, inception(128, 128, 256, 24, 64, 64));
    register_link("inc4d", &ImageNetGoogLeNet::inc4d, inception(112, 144, 288, 32, 64, 64));
    register_link("inc4e", &ImageNetGoogLeNet::inc4e, inception(256, 160, 320, 32, 128, 128));
    register_link("inc5a", &ImageNetGoogLeNet::inc5a, inception(256, 160, 320, 32, 128, 128));
    register_link("inc5b", &ImageNetGoogLeNet::inc5b, inception(384, 192, 384, 48, 128, 128));
    register_link("loss3_fc", &ImageNetGoogLeNet::loss3_fc, linear(n_class));

    register_link("loss1_conv", &ImageNetGoogLeNet::loss1_conv, conv(128, 1));
    register_link("loss1_fc1", &ImageNetGoogLeNet::loss1_fc1, linear(1024));
    register_link("loss1_fc2", &ImageNetGoogLeNet::loss1_fc2, linear(n_class));

    register_link("loss2_conv", &ImageNetGoogLeNet::loss2_conv, conv(128, 1));
    register_link("loss2_fc1", &ImageNetGoogLeNet::loss2_fc1, linear(1024));
    register_link("loss2_fc2", &ImageNetGoogLeNet::loss2_fc2, linear(n_class));
}

Variable ImageNetGoogLeNet::stem(const Variable& x) {
    Variable h = F::relu((*conv1)(x));
    h = F::local_response_normalization(F::max_pooling_2d(h, 3, {.stride = 2}), {.n = 5});
    h = F::relu((*conv2_reduce)(h));
    h = F::relu((*conv2)(h));
    h = F::max_pooling_2d(F::local_response_normalization(h, {.n = 5}), 3, {.stride = 2});
    h = (*inc3a)(h);
    h = (*inc3b)(h);
    h = F::max_pooling_2d(h, 3, {.stride = 2});
    return (*inc4a)(h);
}

Variable ImageNetGoogLeNet::middle(const Variable& h) { return (*inc4d)((*inc4c)((*inc4b)(h))); }

Variable ImageNetGoogLeNet::head(const Variable& h) {
    Variable y = (*inc4e)(h);
    y = F::max_pooling_2d(y, 3, {.stride = 2});
    y = (*inc5b)((*inc5a)(y));
    y = F::average_pooling_2d(y, 7, {.stride = 1});
    return (*loss3_fc)(F::dropout(y, 0.4));
}

Variable ImageNetGoogLeNet::auxiliary(const Variable& h, Convolution2D& conv, Linear& fc1, Linear& fc2) {
    Variable l = F::average_pooling_2d(h, 5, {.stride = 3});
    l = F::relu(conv(l));
    l = F::relu(fc1(l));
    return fc2(l);
}

Variable ImageNetGoogLeNet::forward(const Variable& x) { return head(middle(stem(x))); }

Variable ImageNetGoogLeNet::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, "ImageNetGoogLeNet: the training loss takes (x, t), got ", xs.size(),
                " inputs");
    const Variable& t = xs[1];
    Variable h = stem(xs[0]);
    const Variable loss1 = F::softmax_cross_entropy(auxiliary(h, *loss1_conv, *loss1_fc1, *loss1_fc2), t);
    h = middle(h);
    const Variable loss2 = F::softmax_cross_entropy(auxiliary(h, *loss2_conv, *loss2_fc1, *loss2_fc2), t);
    const Variable y = head(h);
    const Variable loss3 = F::softmax_cross_entropy(y, t);

    Variable loss = 0.3 * (loss1 + loss2) + loss3;
    const Variable accuracy = F::accuracy(y, t);
    report({{"loss", loss.array()},
            {"loss1", loss1.array()},
            {"loss2", loss2.array()},
            {"loss3", loss3.array()},
            {"accuracy", accuracy.array()}},
           this);
    return loss;
}

}  // namespace rensa::links
