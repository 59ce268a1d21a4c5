#pragma once
// The native (CPU) backend: device `native:0`.

#include <memory>

#include "core/backend.h"

namespace rensa::native {

std::unique_ptr<Backend> make_native_backend();

}  // namespace rensa::native
