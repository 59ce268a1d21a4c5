# rensa_add_module(NAME SOURCES... DEPS targets...): one library rensa_<NAME> (static, or
# shared with RENSA_SHARED_MODULES) built from the module folder's sources, includes rooted
# at the repository root.
function(rensa_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(RENSA_SHARED_MODULES)
    add_library(rensa_${name} SHARED ${ARG_SOURCES})
  else()
    add_library(rensa_${name} STATIC ${ARG_SOURCES})
  endif()
  target_include_directories(rensa_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(rensa_${name} PUBLIC ${ARG_DEPS} PRIVATE rensa_flags)
endfunction()
