#pragma once
// ImageNetGoogLeNet: the GoogLeNet of Chainer's ImageNet example (examples/imagenet/googlenet.py;
// named GoogLeNet before, a name that is now Chainer's pretrained model in
// links/model/vision/googlenet.h): the stem (conv1, conv2_reduce, conv2 with local response normalization and max
// pooling), nine Inception modules inc3a..inc5b, 7x7 average pooling, dropout 0.4 and loss3_fc; two auxiliary
// classifiers (loss1_*, after inc4a; loss2_*, after inc4d) are used in training only. Input sizes are learned at the
// first forward (Chainer's None); no pretrained weights.
//
// Two calling conventions, as the example and L::Classifier need:
//   model(x)     the main logits (n, n_class); the auxiliary classifiers are not run.
//   model(x, t)  the example's training loss 0.3 * (loss1 + loss2) + loss3 (softmax cross
//                entropies of the auxiliary and main logits against t), reporting loss,
//                loss1, loss2, loss3 and accuracy (of the main logits) for this link.
// The auxiliary parameters stay uninitialised until the first model(x, t).

#include <cstdint>
#include <memory>
#include <vector>

#include "links/chain.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/inception.h"
#include "links/connection/linear.h"

namespace rensa::links {

class ImageNetGoogLeNet : public Cloneable<ImageNetGoogLeNet, Chain> {
public:
    static constexpr int64_t insize = 224;  // the example's input size (the smallest is 223)

    // n_class: outputs of the three classifiers (the example's 1000).
    explicit ImageNetGoogLeNet(int64_t n_class = 1000);

    // The main logits of x (n, c, h, w).
    Variable forward(const Variable& x) override;
    // xs = {x, t}: the training loss (see above); ValueError for another number of inputs.
    Variable forward(const std::vector<Variable>& xs) override;

    std::shared_ptr<Convolution2D> conv1, conv2_reduce, conv2;
    std::shared_ptr<Inception> inc3a, inc3b, inc4a, inc4b, inc4c, inc4d, inc4e, inc5a, inc5b;
    std::shared_ptr<Linear> loss3_fc;
    std::shared_ptr<Convolution2D> loss1_conv;
    std::shared_ptr<Linear> loss1_fc1, loss1_fc2;
    std::shared_ptr<Convolution2D> loss2_conv;
    std::shared_ptr<Linear> loss2_fc1, loss2_fc2;

private:
    // conv1 .. inc4a, where the first auxiliary classifier branches off.
    Variable stem(const Variable& x);
    // inc4b .. inc4d, where the second one branches off.
    Variable middle(const Variable& h);
    // inc4e .. loss3_fc: the main logits.
    Variable head(const Variable& h);
    // An auxiliary classifier: 5x5 stride-3 average pooling, 1x1 conv, two Linear layers.
    static Variable auxiliary(const Variable& h, Convolution2D& conv, Linear& fc1, Linear& fc2);
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
