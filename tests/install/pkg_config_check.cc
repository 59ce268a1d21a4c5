// Built by tests/install/run_consumer.cmake with nothing but `pkg-config --cflags --libs rensa`
// against an installed prefix: the .pc file's include directories and libraries must be enough
// to compile against rensa's headers and to link and run. Prints "pkg_config_check: rensa <v> OK".

#include <rensa/core/array.h>
#include <rensa/core/ops/creation.h>
#include <rensa/core/ops/reduction.h>
#include <rensa/version.h>

#include <cstdio>
#include <cstring>
#include <exception>

int main() {
    try {
        if (std::strcmp(rensa::version(), RENSA_VERSION_STRING) != 0) {
            std::fprintf(stderr, "pkg_config_check: library %s, header %s\n", rensa::version(), RENSA_VERSION_STRING);
            return 1;
        }
        // 0 + 1 + ... + 9 = 45 through the native backend (OpenBLAS, OpenMP linked by librensa_core.so).
        const double sum = rensa::ops::sum(rensa::ops::arange(10.0)).item<double>();
        if (sum != 45.0) {
            std::fprintf(stderr, "pkg_config_check: sum(arange(10)) = %g, expected 45\n", sum);
            return 1;
        }
        std::printf("pkg_config_check: rensa %s OK\n", rensa::version());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pkg_config_check: %s\n", e.what());
        return 1;
    }
}
