# Compiler flags shared by every rensa target (applied through rensa_flags).
add_library(rensa_flags INTERFACE)
target_compile_options(rensa_flags INTERFACE -Wall -Wextra -Wno-unknown-pragmas)
# GCC 12 at -O3 reports -Wrestrict inside libstdc++ for `"literal" + std::string` (GCC bug
# 105651, a false positive fixed in GCC 13), which -Werror in CI turns into a failure.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(rensa_flags INTERFACE -Wno-restrict)
endif()
if(RENSA_WERROR OR "$ENV{CI}" STREQUAL "true")
  target_compile_options(rensa_flags INTERFACE -Werror)
  message(STATUS "rensa: warnings are errors")
endif()
if(RENSA_NATIVE_ARCH)
  target_compile_options(rensa_flags INTERFACE -march=native)
endif()
if(RENSA_SANITIZE)
  target_compile_options(rensa_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                               -fno-sanitize-recover=undefined)
  target_link_options(rensa_flags INTERFACE -fsanitize=address,undefined)
  message(STATUS "rensa: AddressSanitizer + UndefinedBehaviorSanitizer on")
endif()
