#pragma once
// Linear (chainer.links.Linear): a fully-connected layer y = x W^T + b.

#include <cstdint>
#include <optional>

#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

class Linear : public Cloneable<Linear> {
public:
    Parameter W;  // (out_size, in_size); LeCunNormal by default
    Parameter b;  // (out_size,); zeros by default; undefined (None) with nobias

    // Chainer's Linear(in_size, out_size, nobias, initialW, initial_bias). in_size nullopt:
    // W is created at the first forward from x. Linear(n) (out_size omitted) is Chainer's
    // shorthand for Linear(nullopt, n). Null initializers take Chainer's defaults.
    explicit Linear(std::optional<int64_t> in_size, std::optional<int64_t> out_size = std::nullopt, bool nobias = false,
                    initializers::InitializerPtr initialW = nullptr,
                    initializers::InitializerPtr initial_bias = nullptr);

    using Link::forward;
    // F::linear(x, W, b); x is flattened after the batch axis. Throws DimensionError naming
    // Linear when x's feature count differs from W's in_size.
    Variable forward(const Variable& x) override;
    // As above with the first n_batch_axes axes of x kept as batch axes (Chainer's n_batch_axes).
    Variable forward(const Variable& x, int n_batch_axes);

    int64_t out_size() const { return out_size_; }
    // in_size once known (nullopt before a lazy W is initialised).
    std::optional<int64_t> in_size() const;

private:
    int64_t out_size_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
