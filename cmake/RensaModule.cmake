# rensa_add_module(NAME SOURCES... DEPS targets...): one library rensa_<NAME> (static, or
# shared with RENSA_SHARED_MODULES) built from the module folder's sources, includes rooted
# at the repository root in the tree and at <prefix>/include/rensa once installed (with
# <prefix>/include for <rensa/...>: Note [Installed include paths] in cmake/RensaInstall.cmake).
# The module is recorded in the global property RENSA_MODULES, in the order added, for the
# installed package (rensa_install_package).
function(rensa_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(RENSA_SHARED_MODULES)
    add_library(rensa_${name} SHARED ${ARG_SOURCES})
  else()
    add_library(rensa_${name} STATIC ${ARG_SOURCES})
  endif()
  target_include_directories(rensa_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                                  $<INSTALL_INTERFACE:include/rensa> $<INSTALL_INTERFACE:include>)
  # rensa_flags (warnings, -march=native) is the build's own: the installed targets do not carry it.
  target_link_libraries(rensa_${name} PUBLIC ${ARG_DEPS} PRIVATE $<BUILD_INTERFACE:rensa_flags>)
  set_property(GLOBAL APPEND PROPERTY RENSA_MODULES ${name})
  # Its shared library for the installed package, once the module's CMakeLists.txt has added the
  # rest of its usage requirements, in its own directory (where its imported targets are visible).
  if(RENSA_INSTALL_CXX)
    # (EVAL: a deferred call expands its arguments when it runs, when `name` is gone.)
    cmake_language(EVAL CODE "cmake_language(DEFER CALL rensa_add_shared_module [[${name}]])")
  endif()
endfunction()
