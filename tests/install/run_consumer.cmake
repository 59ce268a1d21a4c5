# The CTest test install/consumer (tests/install/CMakeLists.txt), as a script:
#   cmake -DRENSA_BUILD_DIR=build -DRENSA_SOURCE_DIR=. -DWORK_DIR=<scratch> -DGENERATOR=Ninja
#         -DCXX_COMPILER=c++ [-DCXX_LAUNCHER=ccache] -DPKG_CONFIG=pkg-config -DEXPECT_VERSION=0.1.0
#         -DEXPECT_MODULES=core,autograd,... -P tests/install/run_consumer.cmake
# 1. `cmake --install` of the build into WORK_DIR/prefix (emptied first): the files of every module
#    built are there, and every header an installed header includes is installed too;
# 2. the package's version file: 0.1 compatible, 0.2 and 1.0 not; an unknown component and a
#    module not built fail a REQUIRED find_package with a message naming them;
# 3. examples/consumer configured against the prefix with a plain cmake, built and run: it must
#    print the version and "consumer: OK", and load rensa's shared libraries from the prefix;
# 4. pkg_config_check.cc compiled and linked with `pkg-config --cflags --libs rensa`, and run.
# Any failure is a FATAL_ERROR naming the step.
cmake_minimum_required(VERSION 3.25)
foreach(var RENSA_BUILD_DIR RENSA_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER PKG_CONFIG EXPECT_VERSION EXPECT_MODULES)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
string(REPLACE "," ";" EXPECT_MODULES "${EXPECT_MODULES}")
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# run(<step> <command...>): runs the command, fails the test with its output when it fails; its
# output is left in `run_output`.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "install/consumer: ${step} failed (exit ${rc}): ${command}\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# --- 1. install ---------------------------------------------------------------------------------
run("cmake --install" ${CMAKE_COMMAND} --install ${RENSA_BUILD_DIR} --prefix ${prefix})
foreach(file include/rensa/rensa.h include/rensa/version.h include/rensa/core/array.h lib/cmake/rensa/rensaConfig.cmake
             lib/cmake/rensa/rensaConfigVersion.cmake lib/pkgconfig/rensa.pc)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "install/consumer: cmake --install did not install ${file}")
  endif()
endforeach()
foreach(module IN LISTS EXPECT_MODULES)
  foreach(file include/rensa/${module} lib/librensa_${module}.a lib/librensa_${module}.so)
    if(NOT EXISTS ${prefix}/${file})
      message(FATAL_ERROR "install/consumer: cmake --install did not install ${file} (module ${module} is built)")
    endif()
  endforeach()
endforeach()

# Every quoted include of every installed header names an installed header (a header that only
# code rensa.h does not reach includes would otherwise go unnoticed).
file(GLOB_RECURSE headers ${prefix}/include/rensa/*.h ${prefix}/include/rensa/*.cuh)
set(missing)
foreach(header IN LISTS headers)
  file(STRINGS ${header} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" included "${line}")
    if(NOT EXISTS ${prefix}/include/rensa/${included} AND NOT EXISTS ${prefix}/include/${included})
      file(RELATIVE_PATH name ${prefix}/include ${header})
      list(APPEND missing "${name} includes \"${included}\"")
    endif()
  endforeach()
endforeach()
if(missing)
  list(JOIN missing "\n  " missing)
  message(FATAL_ERROR "install/consumer: installed headers include headers that were not installed:\n  ${missing}")
endif()

# --- 2. version file and components ---------------------------------------------------------
foreach(request_and_expected 0.1:TRUE 0.1.0:TRUE 0.2:FALSE 1.0:FALSE)
  string(REPLACE ":" ";" pair ${request_and_expected})
  list(GET pair 0 PACKAGE_FIND_VERSION)
  list(GET pair 1 expected)
  set(PACKAGE_VERSION_COMPATIBLE)
  string(REPLACE "." ";" parts ${PACKAGE_FIND_VERSION})
  list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
  set(PACKAGE_FIND_VERSION_RANGE FALSE)
  include(${prefix}/lib/cmake/rensa/rensaConfigVersion.cmake)
  if(NOT "${PACKAGE_VERSION_COMPATIBLE}" STREQUAL "${expected}")
    message(FATAL_ERROR "install/consumer: rensa ${PACKAGE_VERSION} for a request of ${PACKAGE_FIND_VERSION}: "
                        "compatible is '${PACKAGE_VERSION_COMPATIBLE}', expected ${expected}")
  endif()
endforeach()

set(launcher)
if(CXX_LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
set(bad_components nosuch)
foreach(module cuda distributed)
  if(NOT module IN_LIST EXPECT_MODULES)
    list(APPEND bad_components ${module})
  endif()
endforeach()
file(WRITE ${WORK_DIR}/bad/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)\nproject(bad LANGUAGES NONE)\n"
                                          "find_package(rensa 0.1 CONFIG REQUIRED COMPONENTS core ${bad_components})\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/bad -B ${WORK_DIR}/bad/build -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
list(GET bad_components 0 first_bad)
# CMake wraps the package's message at spaces, where depends on the length of the prefix's path.
string(REGEX REPLACE "[ \t\r\n]+" " " out_flat "${out}")
if(rc EQUAL 0 OR NOT out_flat MATCHES "component '${first_bad}' is not a rensa module")
  message(FATAL_ERROR "install/consumer: find_package(rensa COMPONENTS core ${bad_components}) should fail naming "
                      "'${first_bad}' (exit ${rc}):\n${out}")
endif()

# --- 3. examples/consumer through find_package ------------------------------------------------
run("configuring examples/consumer"
    ${CMAKE_COMMAND} -S ${RENSA_SOURCE_DIR}/examples/consumer -B ${WORK_DIR}/consumer -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher})
run("building examples/consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run("running examples/consumer" ${WORK_DIR}/consumer/consumer ${WORK_DIR}/consumer_mlp.npz)
message(STATUS "examples/consumer:\n${run_output}")
if(NOT run_output MATCHES "rensa ${EXPECT_VERSION} \\(header ${EXPECT_VERSION}\\)" OR NOT run_output MATCHES
                                                                                       "consumer: OK")
  message(FATAL_ERROR "install/consumer: examples/consumer printed neither the version ${EXPECT_VERSION} nor OK")
endif()
if(NOT EXISTS ${WORK_DIR}/consumer_mlp.npz)
  message(FATAL_ERROR "install/consumer: examples/consumer wrote no ${WORK_DIR}/consumer_mlp.npz")
endif()
# The shared libraries, from the prefix (not the build tree): they carry their own dependencies.
run("ldd examples/consumer" ldd ${WORK_DIR}/consumer/consumer)
if(NOT run_output MATCHES "librensa_core\\.so[.0-9]* => ${prefix}/lib/")
  message(FATAL_ERROR "install/consumer: examples/consumer does not load librensa_core.so from ${prefix}/lib:\n"
                      "${run_output}")
endif()

# --- 4. pkg-config ----------------------------------------------------------------------------
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run("pkg-config --validate rensa" ${PKG_CONFIG} --validate rensa)
run("pkg-config --cflags --libs rensa" ${PKG_CONFIG} --cflags --libs rensa)
string(STRIP "${run_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compiling pkg_config_check.cc with pkg-config's flags"
    ${CXX_LAUNCHER} ${CXX_COMPILER} -std=c++20 -O1 ${RENSA_SOURCE_DIR}/tests/install/pkg_config_check.cc ${flags}
    -Wl,-rpath,${prefix}/lib -o ${WORK_DIR}/pkg_config_check)
run("running pkg_config_check" ${WORK_DIR}/pkg_config_check)
if(NOT run_output MATCHES "pkg_config_check: rensa ${EXPECT_VERSION} OK")
  message(FATAL_ERROR "install/consumer: pkg_config_check printed:\n${run_output}")
endif()
message(STATUS "install/consumer: OK")
