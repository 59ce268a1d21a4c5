// rensa::version() (include/rensa/version.h), compiled into rensa_core.

#include "rensa/version.h"

namespace rensa {

const char* version() noexcept { return RENSA_VERSION_STRING; }

}  // namespace rensa
