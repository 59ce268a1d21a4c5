#pragma once
// Initializers (chainer.initializers): objects that fill a parameter's array. Random
// ones draw from the process-wide Philox generator (rensa::seed), so one seed gives
// the same weights on every device and world size.

#include <memory>
#include <optional>

#include "core/array.h"

namespace rensa::initializers {

class Initializer {
public:
    explicit Initializer(std::optional<Dtype> dtype = std::nullopt) : dtype_{dtype} {}
    virtual ~Initializer() = default;

    // Fills `array` in place (any layout, any float dtype); throws DimensionError when the
    // shape does not suit the initializer (Orthogonal on 1-d, Identity on non-square).
    virtual void operator()(const Array& array) const = 0;

    // The dtype this initializer asks for (Chainer's `dtype` argument), if any.
    std::optional<Dtype> dtype() const { return dtype_; }

    // A new array of `shape` on `device`, filled by this initializer; dtype is the
    // initializer's when it has one, else `dtype`.
    [[nodiscard]] Array generate(const Shape& shape, Dtype dtype = Dtype::kFloat32,
                                 Device device = default_device()) const;

private:
    std::optional<Dtype> dtype_;
};

using InitializerPtr = std::shared_ptr<const Initializer>;

// fan_in, fan_out of a weight shape as Chainer computes them: shape[1] * prod(shape[2:])
// and shape[0] * prod(shape[2:]); throws DimensionError for fewer than 2 dims.
std::pair<double, double> get_fans(const Shape& shape);

}  // namespace rensa::initializers
