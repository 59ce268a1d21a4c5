# Compiler flags shared by every rensa target (applied through rensa_flags). Host flags
# reach nvcc through -Xcompiler so .cu files get the same warnings as .cc files.
add_library(rensa_flags INTERFACE)
set(_rensa_host_flags -Wall -Wextra -Wno-unknown-pragmas)
# GCC 12 at -O3 reports -Wrestrict inside libstdc++ for `"literal" + std::string` (GCC bug
# 105651, a false positive fixed in GCC 13), which -Werror in CI turns into a failure.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND _rensa_host_flags -Wno-restrict)
endif()
if(RENSA_WERROR OR "$ENV{CI}" STREQUAL "true")
  set(RENSA_WARNINGS_AS_ERRORS ON)
  list(APPEND _rensa_host_flags -Werror)
  message(STATUS "rensa: warnings are errors")
endif()
if(RENSA_NATIVE_ARCH)
  list(APPEND _rensa_host_flags -march=native)
endif()
target_compile_options(rensa_flags INTERFACE "$<$<COMPILE_LANGUAGE:C,CXX>:${_rensa_host_flags}>")
if(RENSA_SANITIZE)
  target_compile_options(rensa_flags INTERFACE "$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined;-fno-omit-frame-pointer;-fno-sanitize-recover=undefined>")
  target_link_options(rensa_flags INTERFACE -fsanitize=address,undefined)
  message(STATUS "rensa: AddressSanitizer + UndefinedBehaviorSanitizer on")
endif()

# nvcc: the host warnings through -Xcompiler (-march=native too: host code in .cu files
# shares inline functions with .cc files), device warnings as errors like host ones.
function(rensa_cuda_flags target)
  string(REPLACE ";" "," _xcompiler "${_rensa_host_flags}")
  set(_cuda_flags --expt-relaxed-constexpr --extended-lambda "-Xcompiler=${_xcompiler}")
  if(RENSA_WARNINGS_AS_ERRORS)
    list(APPEND _cuda_flags --Werror=all-warnings)
  endif()
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${_cuda_flags}>")
endfunction()
