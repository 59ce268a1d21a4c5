#pragma once
// SimplifiedDropconnect (chainer.links.SimplifiedDropconnect): a linear layer whose weights
// F::simplified_dropconnect drops at random.

#include <cstdint>
#include <optional>

#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

class SimplifiedDropconnect : public Cloneable<SimplifiedDropconnect> {
public:
    Parameter W;  // (out_size, in_size); HeNormal(1 / sqrt(2)) by default
    Parameter b;  // (out_size,); zeros by default; undefined (None) with nobias

    // Chainer's SimplifiedDropconnect(in_size, out_size, ratio, nobias, initialW, initial_bias);
    // in_size nullopt: W is created at the first forward. ValueError for a bad size.
    SimplifiedDropconnect(std::optional<int64_t> in_size, int64_t out_size, double ratio = 0.5, bool nobias = false,
                          initializers::InitializerPtr initialW = nullptr,
                          initializers::InitializerPtr initial_bias = nullptr);

    using Link::forward;
    Variable forward(const Variable& x) override { return forward(x, true); }
    // F::simplified_dropconnect(x, W, b, ratio, train, mask, use_batchwise_mask). The first mask
    // given becomes the persistent `mask`, as in Chainer.
    Variable forward(const Variable& x, bool train, const Array& mask = Array(), bool use_batchwise_mask = true);

    int64_t out_size() const { return out_size_; }
    double ratio() const { return ratio_; }

private:
    int64_t out_size_;
    double ratio_;
    bool has_mask_ = false;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
