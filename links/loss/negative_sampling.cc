#include "links/loss/negative_sampling.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "core/ops/random.h"
#include "functions/loss.h"
#include "links/initializers.h"

namespace rensa::links {
namespace {

std::vector<double> normalized(const std::vector<double>& probs) {
    RENSA_CHECK(!probs.empty(), ValueError, "WalkerAlias: probs is empty");
    double total = 0;
    for (size_t i = 0; i < probs.size(); ++i) {
        RENSA_CHECK(probs[i] >= 0 && std::isfinite(probs[i]), ValueError, "WalkerAlias: probs[", i, "] = ", probs[i],
                    " is not a finite non-negative weight");
        total += probs[i];
    }
    RENSA_CHECK(total > 0, ValueError, "WalkerAlias: probs sum to zero");
    std::vector<double> p = probs;
    for (double& v : p) v /= total;
    return p;
}

std::vector<double> powered(const std::vector<double>& counts, double power, Dtype dtype) {
    std::vector<double> p;
    for (const double c : counts) {
        const double v = std::pow(c, power);
        p.push_back(dtype == Dtype::kFloat64 ? v : static_cast<double>(static_cast<float>(v)));
    }
    return p;
}

}  // namespace

// Chainer's construction: visit ids by increasing probability; each large entry fills the
// right halves of the small slots opened before it.
WalkerAlias::WalkerAlias(const std::vector<double>& probs) {
    const std::vector<double> prob = normalized(probs);
    const size_t n = prob.size();
    threshold_.assign(n, 0.0);
    values_.assign(2 * n, 0);
    std::vector<std::pair<double, int32_t>> pairs;
    for (size_t i = 0; i < n; ++i) pairs.emplace_back(prob[i], static_cast<int32_t>(i));
    std::sort(pairs.begin(), pairs.end());
    size_t il = 0, ir = 0;
    for (const auto& [pi, i] : pairs) {
        double p = pi * static_cast<double>(n);
        while (p > 1 && ir < il) {
            values_[ir * 2 + 1] = i;
            p -= 1.0 - threshold_[ir];
            ++ir;
        }
        threshold_[il] = p;
        values_[il * 2] = i;
        ++il;
    }
    for (size_t i = ir; i < n; ++i) values_[i * 2 + 1] = 0;
}

Array WalkerAlias::sample(const Shape& shape, Device device) const {
    const std::vector<double> ps = ops::uniform(shape, 0.0, 1.0, Dtype::kFloat64, Device::native()).to_vector<double>();
    const double n = static_cast<double>(threshold_.size());
    std::vector<int32_t> ids;
    ids.reserve(ps.size());
    for (const double u : ps) {
        const double pb = u * n;
        const size_t index = std::min(static_cast<size_t>(pb), threshold_.size() - 1);
        const size_t left_right = threshold_[index] < pb - static_cast<double>(index) ? 1 : 0;
        ids.push_back(values_[index * 2 + left_right]);
    }
    return Array::from_vector(ids, shape, device);
}

NegativeSampling::NegativeSampling(int64_t in_size, const std::vector<double>& counts, int64_t sample_size,
                                   double power, Dtype dtype)
    : sample_size{sample_size}, sampler{powered(counts, power, dtype)} {
    RENSA_CHECK(in_size > 0, ValueError, "NegativeSampling: in_size must be positive, got ", in_size);
    RENSA_CHECK(sample_size >= 0, ValueError, "NegativeSampling: sample_size must be non-negative, got ", sample_size);
    register_param("W", &NegativeSampling::W,
                   Parameter(initializers::constant(0), Shape{static_cast<int64_t>(counts.size()), in_size}, dtype));
}

Variable NegativeSampling::forward(const Variable& x, const Variable& t, std::string_view reduce) {
    const WalkerAlias& table = sampler;
    const Device device = W.device();
    return F::negative_sampling(
        x, t, W, [&table, device](const Shape& shape) { return table.sample(shape, device); }, sample_size, reduce);
}

Variable NegativeSampling::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, "NegativeSampling: forward takes (x, t), got ", xs.size(), " inputs");
    return forward(xs[0], xs[1]);
}

}  // namespace rensa::links
