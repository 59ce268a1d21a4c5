# The installable C++ package (docs/design.md, "Building"): `cmake --install build --prefix P`
# puts the headers under P/include/rensa, the static and shared libraries under P/lib, the CMake
# package under P/lib/cmake/rensa (find_package(rensa 0.1 CONFIG COMPONENTS ...)) and
# P/lib/pkgconfig/rensa.pc. tests/install builds examples/consumer against such a prefix.
#
# Included by the root CMakeLists.txt before the modules (rensa/version.h is generated then, so
# rensa_core compiles include/rensa/version.cc); rensa_install_package() runs after them.
#
# Note [Installed include paths]: rensa's headers include each other rooted at the repository
# root ("core/device.h"), so they install under P/include/rensa/<module>/ and the package puts
# both P/include (for <rensa/core/array.h>, <rensa/rensa.h>) and P/include/rensa (for the headers'
# own "core/device.h") on the include path; rensa.pc's Cflags name the same two. A program may
# include either way; the documented one is <rensa/...>.
#
# Note [One compile for static and shared]: each module compiles once, into its static archive
# rensa_<module> (what the tests, benchmarks and examples link, as before). The installed shared
# library rensa_<module>_shared (file librensa_<module>.so) links that archive whole, after the
# shared libraries of the modules below it, so the linker takes nothing else from the lower
# archives: every module's state lives in one library, as in python/CMakeLists.txt's runtime
# (Note [Lazy native libraries]). The objects are PIC already (CMAKE_POSITION_INDEPENDENT_CODE),
# so the shared libraries cost links, not compiles.
#
# RENSA_INSTALL_CXX turns the package on. It is off when scikit-build-core runs the build
# (`pip install .`: the wheel holds the Python package only), with RENSA_SHARED_MODULES (the modules
# are shared libraries already) and in the sanitizer and fuzzing builds (CI's `make test-asan` and
# `make test-fuzz`, which would link the shared libraries for nothing).

include(CMakeDependentOption)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
cmake_dependent_option(RENSA_INSTALL_CXX "Install rules and shared libraries of the C++ package (cmake --install)" ON
                       "NOT SKBUILD;NOT RENSA_SHARED_MODULES;NOT RENSA_SANITIZE;NOT RENSA_FUZZ" OFF)

set(RENSA_HAS_CUDA 0)
if(RENSA_CUDA_FOUND)
  set(RENSA_HAS_CUDA 1)
endif()
set(RENSA_HAS_DISTRIBUTED 0)
if(RENSA_MPI_FOUND)
  set(RENSA_HAS_DISTRIBUTED 1)
endif()
configure_file(${PROJECT_SOURCE_DIR}/include/rensa/version.h.in ${PROJECT_BINARY_DIR}/include/rensa/version.h @ONLY)
# <rensa/rensa.h> and <rensa/version.h> in the tree: include/ and the build tree's include/. Only the
# targets that include them link rensa_umbrella_headers (tests/install), so that the modules' compile
# lines, and with them the compiler cache's keys, stay as they were.
set(RENSA_UMBRELLA_INCLUDE_DIRS ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
add_library(rensa_umbrella_headers INTERFACE)
target_include_directories(rensa_umbrella_headers INTERFACE ${RENSA_UMBRELLA_INCLUDE_DIRS})

set(RENSA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rensa)

# The install component of a module's files: the CUDA backend and the distributed module have
# their own, the rest is rensa_cxx (`cmake --install build --component rensa_cxx` ...).
function(rensa_install_component module out)
  if(module STREQUAL "cuda" OR module STREQUAL "distributed")
    set(${out} rensa_cxx_${module} PARENT_SCOPE)
  else()
    set(${out} rensa_cxx PARENT_SCOPE)
  endif()
endfunction()

# rensa_<module>_shared from the archive rensa_<module> (Note [One compile for static and shared]),
# deferred to the end of the module's CMakeLists.txt by rensa_add_module, with the archive's public
# usage requirements: its rensa_* dependencies become their shared
# libraries, the static CUDA runtime (inside librensa_cuda.so) becomes the toolkit's headers.
function(rensa_add_shared_module module)
  set(static rensa_${module})
  set(shared rensa_${module}_shared)
  add_library(${shared} SHARED ${PROJECT_SOURCE_DIR}/include/rensa/shared_library.cc)
  get_target_property(deps ${static} INTERFACE_LINK_LIBRARIES)
  set(public_deps)
  foreach(dep IN LISTS deps)
    if(dep MATCHES "^\\$<LINK_ONLY:")
      continue()  # private to the archive: linked into the shared library through it
    elseif(dep MATCHES "^rensa_([a-z_]+)$")
      list(APPEND public_deps rensa_${CMAKE_MATCH_1}_shared)
    elseif(dep STREQUAL "CUDA::cudart_static")
      list(APPEND public_deps CUDA::toolkit)
    else()
      list(APPEND public_deps ${dep})
    endif()
  endforeach()
  # The archive first: its undefined symbols are then resolved by the shared libraries after it
  # (which a linker with --as-needed keeps only if something before them uses them), and nothing is
  # left for the lower archives that CMake puts after those (the archive's own link interface).
  target_link_libraries(${shared} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${static}>")
  target_link_libraries(${shared} PUBLIC ${public_deps})
  foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS)
    get_target_property(value ${static} ${property})
    if(value)
      set_property(TARGET ${shared} PROPERTY ${property} "${value}")
    endif()
  endforeach()
  set_target_properties(
    ${shared}
    PROPERTIES OUTPUT_NAME rensa_${module}
               EXPORT_NAME ${module}_shared
               VERSION ${PROJECT_VERSION}
               SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
               INSTALL_RPATH "$ORIGIN")
  set_target_properties(${static} PROPERTIES EXPORT_NAME ${module}_static)
endfunction()

# pkg-config's `-I` and `-D` flags for the public usage requirements of the installed modules that
# lie outside the prefix (MPI's and CUDA's include directories, RENSA_HAVE_CUDA, ...).
function(rensa_pc_cflags out)
  set(flags)
  foreach(module IN LISTS ARGN)
    foreach(dep IN ITEMS rensa_${module} MPI::MPI_C CUDA::toolkit)
      if(NOT TARGET ${dep} OR (dep MATCHES "^(MPI|CUDA)::" AND NOT module MATCHES "^(distributed|cuda)$"))
        continue()
      endif()
      get_target_property(dirs ${dep} INTERFACE_INCLUDE_DIRECTORIES)
      get_target_property(definitions ${dep} INTERFACE_COMPILE_DEFINITIONS)
      foreach(dir IN LISTS dirs)
        if(dir AND NOT dir MATCHES "\\$<")
          list(APPEND flags "-I${dir}")
        endif()
      endforeach()
      foreach(definition IN LISTS definitions)
        if(definition AND NOT definition MATCHES "\\$<")
          list(APPEND flags "-D${definition}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES flags)
  list(JOIN flags " " flags)
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# After the modules: shared libraries, install rules, the CMake package and rensa.pc.
function(rensa_install_package)
  if(NOT RENSA_INSTALL_CXX)
    return()
  endif()
  get_property(modules GLOBAL PROPERTY RENSA_MODULES)
  set(pc_libs)
  foreach(module IN LISTS modules)
    rensa_install_component(${module} component)
    install(
      TARGETS rensa_${module} rensa_${module}_shared
      EXPORT rensaTargets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${component}
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${component})
    # Every header of the module's folder (detail/ too: public headers include them).
    install(
      DIRECTORY ${PROJECT_SOURCE_DIR}/${module}/
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rensa/${module}
      COMPONENT ${component}
      FILES_MATCHING
      PATTERN "*.h"
      PATTERN "*.cuh")
    list(PREPEND pc_libs -lrensa_${module})  # a module before the ones it uses
  endforeach()
  install(FILES ${PROJECT_SOURCE_DIR}/include/rensa/rensa.h ${PROJECT_BINARY_DIR}/include/rensa/version.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rensa COMPONENT rensa_cxx)
  install(
    EXPORT rensaTargets
    NAMESPACE rensa::
    DESTINATION ${RENSA_INSTALL_CMAKEDIR}
    COMPONENT rensa_cxx)

  # The CMake package: rensaConfig.cmake finds the dependencies and defines rensa::<module>.
  set(RENSA_PACKAGE_MODULES ${modules})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/rensaConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/package/rensaConfig.cmake INSTALL_DESTINATION ${RENSA_INSTALL_CMAKEDIR})
  # 0.x: a minor version may break the API, so 0.1 satisfies a request for 0.1 (or 0.1.x) only.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/rensaConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/package/rensaConfig.cmake ${PROJECT_BINARY_DIR}/package/rensaConfigVersion.cmake
          DESTINATION ${RENSA_INSTALL_CMAKEDIR} COMPONENT rensa_cxx)

  # rensa.pc, relocatable: the prefix is found from the .pc file's own directory.
  file(RELATIVE_PATH pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)  # any prefix: only the path between counts
  string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
  set(RENSA_PC_PREFIX "\${pcfiledir}/${pc_to_prefix}")
  list(JOIN pc_libs " " RENSA_PC_LIBS)
  rensa_pc_cflags(RENSA_PC_CFLAGS ${modules})
  set(RENSA_PC_REQUIRES_PRIVATE "openblas libzip zlib")
  if(RENSA_MPI_FOUND)
    string(APPEND RENSA_PC_REQUIRES_PRIVATE " mpich")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/rensa.pc.in ${PROJECT_BINARY_DIR}/package/rensa.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/package/rensa.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT rensa_cxx)
endfunction()
