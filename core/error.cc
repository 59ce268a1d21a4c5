#include "core/error.h"

#include <cstdio>
#include <cstdlib>

namespace rensa::detail {

void assert_fail(const char* expr, const char* file, int line) {
    std::fprintf(stderr, "rensa: internal assertion failed: %s at %s:%d\n", expr, file, line);
    std::abort();
}

}  // namespace rensa::detail
