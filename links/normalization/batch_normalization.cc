#include "links/normalization/batch_normalization.h"

#include <algorithm>
#include <vector>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/normalization.h"

namespace rensa::links {
namespace {

// Chainer's get_dtype(dtype, map_mixed16=float32): statistics of 16-bit inputs in float32.
Dtype high_precision(Dtype dtype) {
    return dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16 ? Dtype::kFloat32 : dtype;
}

// x's shape without the `axis` axes (negative ones count from the end): the shape of
// gamma and the statistics.
Shape param_shape_of(const Shape& x_shape, const Axes& axis) {
    std::vector<int> reduced;
    for (const int a : axis) {
        RENSA_CHECK(a >= -x_shape.size() && a < x_shape.size(), DimensionError, "BatchNormalization: axis ", a,
                    " is out of range for an input of shape ", x_shape);
        reduced.push_back(a < 0 ? a + x_shape.size() : a);
    }
    Shape shape;
    for (int i = 0; i < x_shape.size(); ++i) {
        if (std::find(reduced.begin(), reduced.end(), i) == reduced.end()) shape.push_back(x_shape[i]);
    }
    return shape;
}

}  // namespace

BatchNormalization::BatchNormalization(std::optional<Shape> size, const BatchNormalizationOptions& options)
    : decay{options.decay},
      eps{options.eps},
      axis{options.axis},
      param_dtype_{high_precision(options.dtype.value_or(config().dtype))},
      initial_avg_mean_{initializers::or_default(options.initial_avg_mean, initializers::constant(0))},
      initial_avg_var_{initializers::or_default(options.initial_avg_var, initializers::constant(1))} {
    RENSA_CHECK(size || axis, ValueError, "BatchNormalization: size or axis is required");
    RENSA_CHECK(is_float(param_dtype_), DtypeError, "BatchNormalization: dtype must be floating point, got ",
                options.dtype.value_or(config().dtype));
    register_persistent("N", &BatchNormalization::N);
    if (options.use_gamma) {
        register_param("gamma", &BatchNormalization::gamma,
                       Parameter(initializers::or_default(options.initial_gamma, initializers::constant(1)),
                                 std::nullopt, param_dtype_));
    }
    if (options.use_beta) {
        register_param("beta", &BatchNormalization::beta,
                       Parameter(initializers::or_default(options.initial_beta, initializers::constant(0)),
                                 std::nullopt, param_dtype_));
    }
    register_persistent("avg_mean", &BatchNormalization::avg_mean);
    register_persistent("avg_var", &BatchNormalization::avg_var);
    if (size) initialize_params(*size);
}

void BatchNormalization::initialize_params(const Shape& shape) {
    avg_mean = initial_avg_mean_->generate(shape, param_dtype_, device_);
    avg_var = initial_avg_var_->generate(shape, param_dtype_, device_);
    if (gamma.defined()) gamma.initialize(shape);
    if (beta.defined()) beta.initialize(shape);
}

void BatchNormalization::prepare_statistics(const Shape& x_shape) {
    if (!avg_mean.defined()) {
        RENSA_CHECK(axis.has_value(), ValueError, "BatchNormalization: the size is unknown and no axis is given");
        initialize_params(param_shape_of(x_shape, *axis));
    }
    // Statistics loaded into a lazy link come in the file's dtype, on the host.
    for (Array* stat : {&avg_mean, &avg_var}) {
        if (stat->dtype() != param_dtype_ || stat->device() != device_) {
            *stat = stat->astype(param_dtype_, false).to_device(device_);
        }
    }
}

Variable BatchNormalization::forward(const Variable& x, const BatchNormalizationForwardOptions& options) {
    prepare_statistics(x.shape());
    const Variable g = gamma.defined() ? Variable(gamma) : Variable(ops::ones_like(avg_mean), false);
    const Variable b = beta.defined() ? Variable(beta) : Variable(ops::zeros_like(avg_mean), false);
    if (!config().train) {
        return F::fixed_batch_normalization(x, g, b, Variable(avg_mean, false), Variable(avg_var, false), eps, axis);
    }
    double step_decay = decay;
    if (options.finetune) {
        N += 1;
        step_decay = 1.0 - 1.0 / static_cast<double>(N);
    }
    return F::batch_normalization(
        x, g, b, {.eps = eps, .running_mean = avg_mean, .running_var = avg_var, .decay = step_decay, .axis = axis});
}

}  // namespace rensa::links
