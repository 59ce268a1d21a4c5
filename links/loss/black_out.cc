#include "links/loss/black_out.h"

#include "core/error.h"
#include "functions/loss.h"
#include "links/initializers.h"

namespace rensa::links {

BlackOut::BlackOut(int64_t in_size, const std::vector<double>& counts, int64_t sample_size, Dtype dtype)
    : sample_size{sample_size}, sampler{counts} {
    RENSA_CHECK(in_size > 0, ValueError, "BlackOut: in_size must be positive, got ", in_size);
    RENSA_CHECK(sample_size >= 0, ValueError, "BlackOut: sample_size must be non-negative, got ", sample_size);
    register_param(
        "W", &BlackOut::W,
        Parameter(std::make_shared<initializers::NaN>(), Shape{static_cast<int64_t>(counts.size()), in_size}, dtype));
}

Variable BlackOut::forward(const Variable& x, const Variable& t) {
    RENSA_CHECK(x.defined() && x.ndim() >= 1, DimensionError, "BlackOut: x must have a batch axis");
    const Array samples =
        sample_data.defined() ? sample_data : sampler.sample(Shape{x.shape()[0], sample_size}, W.device());
    return F::black_out(x, t, W, Variable(samples, false));
}

Variable BlackOut::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, "BlackOut: forward takes (x, t), got ", xs.size(), " inputs");
    return forward(xs[0], xs[1]);
}

}  // namespace rensa::links
