// Constant, Zero, One, NaN, FromArray and the shorthands of links/initializers.h.
#include <limits>
#include <utility>

#include "core/error.h"
#include "links/initializers.h"
#include "links/initializers/check.h"

namespace rensa::initializers {

Constant::Constant(double fill_value, std::optional<Dtype> dtype) : Initializer(dtype), fill_value_{fill_value} {}

void Constant::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "Constant");
    array.fill(fill_value_);
}

NaN::NaN(std::optional<Dtype> dtype) : Constant(std::numeric_limits<double>::quiet_NaN(), dtype) {}

FromArray::FromArray(Array value) : value_{std::move(value)} {
    RENSA_CHECK(value_.defined(), ValueError, "FromArray: the value array is undefined");
}

void FromArray::operator()(const Array& array) const {
    RENSA_CHECK(array.shape() == value_.shape(), DimensionError, "FromArray: the value has shape ", value_.shape(),
                " but the array to initialise has shape ", array.shape());
    array.assign(value_.to_device(array.device()));
}

InitializerPtr constant(double fill_value) { return std::make_shared<Constant>(fill_value); }

InitializerPtr from_array(const Array& value) { return std::make_shared<FromArray>(value); }

InitializerPtr or_default(InitializerPtr initializer, InitializerPtr fallback) {
    return initializer ? std::move(initializer) : std::move(fallback);
}

}  // namespace rensa::initializers
