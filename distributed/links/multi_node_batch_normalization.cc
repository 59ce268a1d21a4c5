// The multi-node batch normalization node and link. See Note [Multi-node batch statistics]
// in multi_node_batch_normalization.h.

#include "distributed/links/multi_node_batch_normalization.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/function_node.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/manipulation.h"
#include "core/ops/normalization.h"
#include "core/ops/reduction.h"
#include "functions/normalization.h"

namespace rensa::distributed {
namespace {

// x's shape with the reduced axes set to 1 (how channel values broadcast against x).
struct Geometry {
    Axes axes;
    Shape keep_shape, channel_shape;
    int64_t local_m = 1;  // elements per channel on this rank

    Array expand(const Array& channel) const { return channel.reshape(keep_shape); }
    Array reduce(const Array& a) const { return ops::sum(a, axes).reshape(channel_shape); }
};

Geometry geometry_of(const Shape& x_shape, const Shape& gamma_shape) {
    Geometry g{ops::batch_norm_default_axes(x_shape.size(), gamma_shape.size()), x_shape, gamma_shape, 1};
    for (const int a : g.axes) {
        g.keep_shape[a] = 1;
        g.local_m *= x_shape[a];
    }
    return g;
}

// All-reduces (sum) the concatenation of `parts` (each of the channel shape) and `extra`
// trailing scalars in one collective; returns the reduced parts, then the reduced scalars.
std::vector<Array> allreduce_packed(Communicator& comm, const std::vector<Array>& parts, const Geometry& g,
                                    const std::vector<double>& extra = {}) {
    std::vector<Array> flat;
    std::vector<int64_t> cuts;
    int64_t offset = 0;
    for (const Array& p : parts) {
        flat.push_back(p.ravel());
        offset += p.size();
        cuts.push_back(offset);
    }
    for (const double e : extra) {
        flat.push_back(ops::full(Shape{1}, e, Dtype::kFloat64).astype(parts[0].dtype()));
        cuts.push_back(++offset);
    }
    cuts.pop_back();
    std::vector<Array> pieces = ops::split(comm.allreduce(ops::concatenate(flat), ReduceOp::kSum), cuts);
    for (size_t i = 0; i < parts.size(); ++i) pieces[i] = pieces[i].reshape(g.channel_shape);
    return pieces;
}

class MultiNodeBatchNormalizationFunction : public FunctionNode {
public:
    MultiNodeBatchNormalizationFunction(Geometry g, CommunicatorPtr comm,
                                        MultiNodeBatchNormalizationFunctionOptions options)
        : g_{std::move(g)}, comm_{std::move(comm)}, options_{std::move(options)} {}

    std::vector<Array> forward(const std::vector<Array>& in) override {
        retain_inputs({0, 1});
        const Array xs = in[0].astype(ops::batch_norm_stat_dtype(in[0].dtype()), false);
        const std::vector<Array> sum_count =
            allreduce_packed(*comm_, {g_.reduce(xs)}, g_, {static_cast<double>(g_.local_m)});
        total_m_ = sum_count[1].astype(Dtype::kFloat64).item<double>();
        mean_ = ops::divide(sum_count[0], total_m_).astype(xs.dtype(), false);
        const Array centered = ops::subtract(xs, g_.expand(mean_));
        const Array var = ops::divide(allreduce_packed(*comm_, {g_.reduce(ops::square(centered))}, g_)[0], total_m_)
                              .astype(xs.dtype(), false);
        inv_std_ = ops::rsqrt(ops::add(var, options_.eps));
        update_running_statistics(var);
        const Dtype pd = in[1].dtype();
        return {ops::fixed_batch_norm(in[0], in[1], in[2], mean_.astype(pd, false), var.astype(pd, false), g_.axes,
                                      options_.eps)};
    }

    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Array x = retained_input(0).array(), gamma = retained_input(1).array();
        const Dtype sd = mean_.dtype();
        const Array gy = gys[0].array().astype(sd, false);
        const Array x_hat = ops::multiply(ops::subtract(x.astype(sd, false), g_.expand(mean_)), g_.expand(inv_std_));
        const Array gbeta = g_.reduce(gy), ggamma = g_.reduce(ops::multiply(gy, x_hat));
        const std::vector<Array> global = allreduce_packed(*comm_, {gbeta, ggamma}, g_);
        // gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / M), with the global sums.
        const Array mixed = ops::add(ops::multiply(x_hat, g_.expand(global[1])), g_.expand(global[0]));
        const Array coeff = ops::multiply(gamma.astype(sd, false), inv_std_);
        const Array gx = ops::multiply(g_.expand(coeff), ops::subtract(gy, ops::divide(mixed, total_m_)));
        return {Variable(gx.astype(x.dtype(), false), false), Variable(ggamma.astype(gamma.dtype(), false), false),
                Variable(gbeta.astype(input_dtype(2), false), false)};
    }
    std::string label() const override { return "MultiNodeBatchNormalization"; }

private:
    // Chainer's update: the running variance takes the unbiased variance (M / (M - 1)).
    void update_running_statistics(const Array& var) const {
        const double decay = options_.decay, adjust = total_m_ / std::max(total_m_ - 1.0, 1.0);
        if (options_.running_mean.defined()) {
            ops::multiply_inplace(options_.running_mean, decay);
            ops::add_inplace(options_.running_mean, ops::multiply(mean_.astype(Dtype::kFloat64), 1.0 - decay));
        }
        if (options_.running_var.defined()) {
            ops::multiply_inplace(options_.running_var, decay);
            ops::add_inplace(options_.running_var, ops::multiply(var.astype(Dtype::kFloat64), (1.0 - decay) * adjust));
        }
    }

    Geometry g_;
    CommunicatorPtr comm_;
    MultiNodeBatchNormalizationFunctionOptions options_;
    Array mean_, inv_std_;
    double total_m_ = 1;
};

void check_arguments(const Variable& x, const Variable& gamma, const Variable& beta, const CommunicatorPtr& comm) {
    constexpr const char* kOp = "multi_node_batch_normalization";
    RENSA_CHECK(comm != nullptr, ValueError, kOp, ": the communicator is null");
    RENSA_CHECK(is_float(x.dtype()), DtypeError, kOp, ": Expect: x.dtype.kind == 'f', Actual: ", x.dtype());
    RENSA_CHECK(is_float(gamma.dtype()) && gamma.dtype() == beta.dtype(), DtypeError, kOp,
                ": gamma and beta must share one floating dtype, got ", gamma.dtype(), " and ", beta.dtype());
    RENSA_CHECK(gamma.shape() == beta.shape(), DimensionError, kOp, ": gamma.shape=", gamma.shape(),
                " != beta.shape=", beta.shape());
    RENSA_CHECK(x.ndim() >= gamma.ndim() + 1, DimensionError, kOp,
                ": Expect: x.ndim >= gamma.ndim + 1, Actual: ", x.ndim(), " < ", gamma.ndim() + 1);
    for (int i = 0; i < gamma.ndim(); ++i) {
        RENSA_CHECK(x.shape()[i + 1] == gamma.shape()[i], DimensionError, kOp, ": x.shape=", x.shape(),
                    " does not match gamma.shape=", gamma.shape(), " (expected x.shape[1:", gamma.ndim() + 1,
                    "] == gamma.shape)");
    }
}

Dtype high_precision(Dtype dtype) {
    return dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16 ? Dtype::kFloat32 : dtype;
}

}  // namespace

Variable multi_node_batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta,
                                        const CommunicatorPtr& comm,
                                        const MultiNodeBatchNormalizationFunctionOptions& options) {
    check_arguments(x, gamma, beta, comm);
    auto node =
        std::make_shared<MultiNodeBatchNormalizationFunction>(geometry_of(x.shape(), gamma.shape()), comm, options);
    return node->apply({x, gamma, beta})[0];
}

MultiNodeBatchNormalization::MultiNodeBatchNormalization(Shape size, CommunicatorPtr comm,
                                                         const MultiNodeBatchNormalizationOptions& options)
    : decay{options.decay}, eps{options.eps}, comm_{std::move(comm)} {
    RENSA_CHECK(comm_ != nullptr, ValueError, "MultiNodeBatchNormalization: the communicator is null");
    RENSA_CHECK(is_float(options.dtype), DtypeError, "MultiNodeBatchNormalization: dtype must be floating point, got ",
                options.dtype);
    const Dtype pd = high_precision(options.dtype);
    register_persistent("N", &MultiNodeBatchNormalization::N);
    if (options.use_gamma) {
        register_param(
            "gamma", &MultiNodeBatchNormalization::gamma,
            links::Parameter(initializers::or_default(options.initial_gamma, initializers::constant(1)), size, pd));
    }
    if (options.use_beta) {
        register_param(
            "beta", &MultiNodeBatchNormalization::beta,
            links::Parameter(initializers::or_default(options.initial_beta, initializers::constant(0)), size, pd));
    }
    register_persistent("avg_mean", &MultiNodeBatchNormalization::avg_mean);
    register_persistent("avg_var", &MultiNodeBatchNormalization::avg_var);
    avg_mean = ops::zeros(size, pd);
    avg_var = ops::ones(size, pd);
}

Variable MultiNodeBatchNormalization::forward(const Variable& x) {
    const Variable g = gamma.defined() ? Variable(gamma) : Variable(ops::ones_like(avg_mean), false);
    const Variable b = beta.defined() ? Variable(beta) : Variable(ops::zeros_like(avg_mean), false);
    if (!config().train) {
        return functions::fixed_batch_normalization(x, g, b, Variable(avg_mean, false), Variable(avg_var, false), eps);
    }
    return multi_node_batch_normalization(
        x, g, b, comm_, {.eps = eps, .running_mean = avg_mean, .running_var = avg_var, .decay = decay});
}

}  // namespace rensa::distributed
