#include "core/scalar.h"

namespace rensa {

Dtype Scalar::default_dtype() const {
    switch (kind_) {
        case ScalarKind::kBool:
            return Dtype::kBool;
        case ScalarKind::kInt:
            return Dtype::kInt64;
        case ScalarKind::kFloat:
            return Dtype::kFloat64;
    }
    return Dtype::kFloat64;
}

Dtype result_type(Dtype array_dtype, const Scalar& scalar) {
    switch (scalar.kind()) {
        case ScalarKind::kBool:
            return array_dtype;
        case ScalarKind::kInt:
            return array_dtype == Dtype::kBool ? Dtype::kInt64 : array_dtype;
        case ScalarKind::kFloat:
            return is_float(array_dtype) ? array_dtype : kDefaultFloat;
    }
    return array_dtype;
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
    switch (s.kind()) {
        case ScalarKind::kBool:
            return os << (s.to<bool>() ? "True" : "False");
        case ScalarKind::kInt:
            return os << s.to_int();
        case ScalarKind::kFloat:
            return os << s.to_double();
    }
    return os;
}

}  // namespace rensa
