#pragma once
// BatchNormalization (chainer.links.BatchNormalization): batch normalization with learned
// scale and shift (gamma, beta) and running statistics for inference.
//
// Modes, as in Chainer:
//   training (config().train):  normalizes with batch statistics and updates avg_mean and
//                               avg_var in place by an exponential moving average (decay);
//                               avg_var takes the unbiased batch variance (m / (m - 1)).
//   fine-tuning (train and .finetune): the same with decay = 1 - 1/N after N += 1, so the
//                               running statistics become the plain average over the batches.
//   testing (config().train == false): normalizes with avg_mean and avg_var.
// NPZ keys are Chainer's: gamma, beta, avg_mean, avg_var, N.

#include <cstdint>
#include <optional>

#include "autograd/variable.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's keyword arguments of BatchNormalization.
struct BatchNormalizationOptions {
    double decay = 0.9;
    double eps = 2e-5;
    // dtype of the input; parameters and statistics use float32 for float16/bfloat16. None:
    // config().dtype (float16 under mixed16), as Chainer's dtype=None.
    std::optional<Dtype> dtype{};
    bool use_gamma = true, use_beta = true;
    initializers::InitializerPtr initial_gamma{};  // null: 1
    initializers::InitializerPtr initial_beta{};   // null: 0
    // Axes the statistics are taken over; by default 0 and the axes after `size`.
    std::optional<Axes> axis{};
    initializers::InitializerPtr initial_avg_mean{};  // null: 0
    initializers::InitializerPtr initial_avg_var{};   // null: 1
};

// Options of one forward call.
struct BatchNormalizationForwardOptions {
    bool finetune = false;
};

class BatchNormalization : public Cloneable<BatchNormalization> {
public:
    // `size`: the shape of gamma, beta and the statistics; nullopt learns it from the first
    // input (x.shape without the `axis` axes), which then needs options.axis (ValueError).
    explicit BatchNormalization(std::optional<Shape> size, const BatchNormalizationOptions& options = {});
    explicit BatchNormalization(int64_t size, const BatchNormalizationOptions& options = {})
        : BatchNormalization(Shape{size}, options) {}

    using Link::forward;
    Variable forward(const Variable& x) override { return forward(x, {}); }
    // Virtual for BatchRenormalization, which keeps this link's parameters and statistics.
    virtual Variable forward(const Variable& x, const BatchNormalizationForwardOptions& options);

    // Restarts the fine-tuning average (N = 0).
    void start_finetuning() { N = 0; }

    Parameter gamma, beta;    // undefined when use_gamma / use_beta is false
    Array avg_mean, avg_var;  // undefined until the size is known
    int64_t N = 0;            // NOLINT(readability-identifier-naming): Chainer's name
    double decay, eps;
    std::optional<Axes> axis;

protected:
    // Creates the statistics of a lazy link from x's shape; brings loaded ones to the
    // link's dtype and device.
    void prepare_statistics(const Shape& x_shape);

private:
    void initialize_params(const Shape& shape);
    Dtype param_dtype_;
    initializers::InitializerPtr initial_avg_mean_, initial_avg_var_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
