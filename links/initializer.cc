#include "links/initializer.h"

#include "core/error.h"

namespace rensa::initializers {

Array Initializer::generate(const Shape& shape, Dtype dtype, Device device) const {
    Array array = Array::empty(shape, dtype_.value_or(dtype), device);
    (*this)(array);
    return array;
}

std::pair<double, double> get_fans(const Shape& shape) {
    RENSA_CHECK(shape.size() >= 2, DimensionError, "get_fans: shape must have at least 2 dims, got ", shape);
    double receptive_field = 1.0;
    for (int i = 2; i < static_cast<int>(shape.size()); ++i) {
        receptive_field *= static_cast<double>(shape[i]);
    }
    return {static_cast<double>(shape[1]) * receptive_field, static_cast<double>(shape[0]) * receptive_field};
}

}  // namespace rensa::initializers
