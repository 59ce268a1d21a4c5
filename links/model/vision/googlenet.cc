#include "links/model/vision/googlenet.h"

#include "functions/activation.h"
#include "functions/noise.h"
#include "functions/normalization.h"
#include "functions/pooling.h"
#include "links/initializers.h"

namespace rensa::links {
namespace {

std::shared_ptr<Convolution2D> conv(int64_t in, int64_t out, int64_t ksize, int64_t stride, int64_t pad,
                                    const initializers::InitializerPtr& initialW) {
    return std::make_shared<Convolution2D>(in, out, ksize,
                                           Convolution2DOptions{.stride = stride, .pad = pad, .initialW = initialW});
}
std::shared_ptr<Inception> inception(int64_t in, int64_t out1, int64_t proj3, int64_t out3, int64_t proj5, int64_t out5,
                                     int64_t proj_pool) {
    return std::make_shared<Inception>(in, out1, proj3, out3, proj5, out5, proj_pool);  // Chainer: default inits
}
std::shared_ptr<Linear> linear(int64_t in, int64_t out, const initializers::InitializerPtr& initialW) {
    return std::make_shared<Linear>(in, out, false, initialW);
}

Variable relu(const Variable& x) { return F::relu(x); }
Variable max_pool(const Variable& x) { return F::max_pooling_2d(x, 3, {.stride = 2}); }
Variable lrn(const Variable& x) { return F::local_response_normalization(x, {.n = 5, .k = 1, .alpha = 1e-4 / 5}); }
Variable average_pool_k5(const Variable& x) { return F::average_pooling_2d(x, 5, {.stride = 3}); }
Variable average_pool_k7(const Variable& x) { return F::average_pooling_2d(x, 7, {.stride = 1}); }
Variable dropout(const Variable& x) { return F::dropout(x, 0.4); }
Variable softmax(const Variable& x) { return F::softmax(x); }

}  // namespace

GoogLeNet::GoogLeNet(const std::string& pretrained_model) {
    vision::check_pretrained("GoogLeNet", pretrained_model);
    // Chainer's kwargs: zeros under pretrained weights (overwritten), else LeCunUniform(scale=1).
    initializers::InitializerPtr w;
    if (pretrained_model.empty()) {
        w = std::make_shared<initializers::LeCunUniform>(1.0);
    } else {
        w = std::make_shared<initializers::Zero>();
    }
    register_link("conv1", &GoogLeNet::conv1, conv(3, 64, 7, 2, 3, w));
    register_link("conv2_reduce", &GoogLeNet::conv2_reduce, conv(64, 64, 1, 1, 0, w));
    register_link("conv2", &GoogLeNet::conv2, conv(64, 192, 3, 1, 1, w));
    register_link("inc3a", &GoogLeNet::inc3a, inception(192, 64, 96, 128, 16, 32, 32));
    register_link("inc3b", &GoogLeNet::inc3b, inception(256, 128, 128, 192, 32, 96, 64));
    register_link("inc4a", &GoogLeNet::inc4a, inception(480, 192, 96, 208, 16, 48, 64));
    register_link("inc4b", &GoogLeNet::inc4b, inception(512, 160, 112, 224, 24, 64, 64));
    register_link("inc4c", &GoogLeNet::inc4c, inception(512, 128, 128, 256, 24, 64, 64));
    register_link("inc4d", &GoogLeNet::inc4d, inception(512, 112, 144, 288, 32, 64, 64));
    register_link("inc4e", &GoogLeNet::inc4e, inception(528, 256, 160, 320, 32, 128, 128));
    register_link("inc5a", &GoogLeNet::inc5a, inception(832, 256, 160, 320, 32, 128, 128));
    register_link("inc5b", &GoogLeNet::inc5b, inception(832, 384, 192, 384, 48, 128, 128));
    register_link("loss3_fc", &GoogLeNet::loss3_fc, linear(1024, 1000, w));
    register_link("loss1_conv", &GoogLeNet::loss1_conv, conv(512, 128, 1, 1, 0, w));
    register_link("loss1_fc1", &GoogLeNet::loss1_fc1, linear(2048, 1024, w));
    register_link("loss1_fc2", &GoogLeNet::loss1_fc2, linear(1024, 1000, w));
    register_link("loss2_conv", &GoogLeNet::loss2_conv, conv(528, 128, 1, 1, 0, w));
    register_link("loss2_fc1", &GoogLeNet::loss2_fc1, linear(2048, 1024, w));
    register_link("loss2_fc2", &GoogLeNet::loss2_fc2, linear(1024, 1000, w));
    vision::load_pretrained(*this, "GoogLeNet", pretrained_model);
}

vision::LayerTable GoogLeNet::functions() {
    auto link = [](const std::shared_ptr<Link>& l) { return [l](const Variable& x) { return l->forward(x); }; };
    return {{"conv1", {link(conv1), relu}},
            {"pool1", {max_pool, lrn}},
            {"conv2_reduce", {link(conv2_reduce), relu}},
            {"conv2", {link(conv2), relu, lrn}},
            {"pool2", {max_pool}},
            {"inception_3a", {link(inc3a)}},
            {"inception_3b", {link(inc3b)}},
            {"pool3", {max_pool}},
            {"inception_4a", {link(inc4a)}},
            {"inception_4b", {link(inc4b)}},
            {"inception_4c", {link(inc4c)}},
            {"inception_4d", {link(inc4d)}},
            {"inception_4e", {link(inc4e)}},
            {"pool4", {max_pool}},
            {"inception_5a", {link(inc5a)}},
            {"inception_5b", {link(inc5b)}},
            {"pool5", {average_pool_k7}},
            {"loss3_fc", {dropout, link(loss3_fc)}},
            {"prob", {softmax}},
            {"loss1_fc2",
             {average_pool_k5, link(loss1_conv), relu, link(loss1_fc1), relu, link(loss1_fc2)},
             "inception_4a"},
            {"loss2_fc2",
             {average_pool_k5, link(loss2_conv), relu, link(loss2_fc1), relu, link(loss2_fc2)},
             "inception_4d"}};
}

std::map<std::string, Variable> GoogLeNet::forward(const Variable& x, const std::vector<std::string>& layers) {
    return vision::forward_layers("GoogLeNet", functions(), x, layers);
}

Variable GoogLeNet::forward(const Variable& x) { return forward(x, {"prob"}).at("prob"); }

}  // namespace rensa::links
