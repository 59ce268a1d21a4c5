// PLACEHOLDER: replaced by numpy-like printing.
#include "core/array.h"
namespace rensa {
std::string Array::repr() const { return "array(...)"; }
std::ostream& operator<<(std::ostream& os, const Array& a) { return os << a.repr(); }
}  // namespace rensa
