#pragma once
// Bilinear (chainer.links.Bilinear): y = e1^T W e2 + V1^T e1 + V2^T e2 + b over
// F::bilinear.

#include <cstdint>
#include <optional>
#include <vector>

#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

// Chainer's tuple initial_bias = (V1, V2, b); a null entry means LeCunNormal, as in Chainer.
struct BilinearInitialBias {
    initializers::InitializerPtr V1{}, V2{}, b{};
};

class Bilinear : public Cloneable<Bilinear> {
public:
    Parameter W;   // (left_size, right_size, out_size); LeCunNormal by default
    Parameter V1;  // (left_size, out_size); LeCunNormal by default; undefined with nobias
    Parameter V2;  // (right_size, out_size); LeCunNormal by default; undefined with nobias
    Parameter b;   // (out_size,); zeros by default; undefined with nobias

    // Chainer's Bilinear(left_size, right_size, out_size, nobias, initialW, initial_bias).
    Bilinear(int64_t left_size, int64_t right_size, int64_t out_size, bool nobias = false,
             initializers::InitializerPtr initialW = nullptr,
             std::optional<BilinearInitialBias> initial_bias = std::nullopt);

    using Link::forward;
    // {e1, e2}: F::bilinear(e1, e2, W, V1, V2, b); e1 (N, left_size), e2 (N, right_size) ->
    // (N, out_size). ValueError for another number of inputs; DimensionError naming
    // Bilinear when the feature sizes do not match.
    Variable forward(const std::vector<Variable>& xs) override;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
