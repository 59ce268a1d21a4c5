# Fault tests (included by tests/CMakeLists.txt when rensa_distributed exists): each case runs
# `mpiexec -n N rensa_fault_prog MODE` through run_fault.py, which checks the job's exit
# status, how long it took and what it printed. Every case has a hard CTest timeout.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_executable(rensa_fault_prog ${CMAKE_CURRENT_LIST_DIR}/main.cc)
target_link_libraries(rensa_fault_prog PRIVATE rensa_distributed rensa_flags)

# rensa_fault_case(NAME MODE NP STATUS MAX_SECONDS [ENV K=V...] [EXPECT regex...] [FORBID regex...])
function(rensa_fault_case name mode np status max_seconds)
  cmake_parse_arguments(ARG "" "" "ENV;EXPECT;FORBID" ${ARGN})
  set(args --mpiexec ${MPIEXEC_EXECUTABLE} --prog $<TARGET_FILE:rensa_fault_prog> --np ${np} --mode ${mode}
           --status ${status} --max-seconds ${max_seconds})
  foreach(item IN LISTS ARG_ENV)
    list(APPEND args --env ${item})
  endforeach()
  foreach(item IN LISTS ARG_EXPECT)
    list(APPEND args --expect ${item})
  endforeach()
  foreach(item IN LISTS ARG_FORBID)
    list(APPEND args --forbid ${item})
  endforeach()
  set(test "distributed/faults: ${name}")
  add_test(NAME ${test} COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/run_fault.py ${args})
  set_tests_properties(${test} PROPERTIES TIMEOUT 90 PROCESSORS ${np})
endfunction()

# Rank 1 misbehaves instead of entering allreduce #5 while the others wait in it.
set(exited "rank 1 exited after entering 5 operations on communicator 0 while rank [02] waits in allreduce #5")
set(stalled "watchdog: allreduce #5 on communicator 0 has waited [0-9.]+ s. ranks that did not arrive: 1 .entered 5.")
set(mismatch "caught: allreduce #5 on communicator 0: rank 1 called allreduce.float32, .3, 4.. but rank 0 called allreduce.float32, .4, 4..")
foreach(np IN ITEMS 2 3)
  rensa_fault_case("segfault np=${np}" segfault ${np} nonzero 30 EXPECT "rensa: rank 1: killed by signal 11")
  rensa_fault_case("exit0 np=${np}" exit0 ${np} nonzero 30 EXPECT "rensa: rank [02]: ${exited}")
  rensa_fault_case("stall np=${np}" stall ${np} nonzero 15 ENV RENSA_WATCHDOG_TIMEOUT=5 EXPECT "rensa: rank [02]: ${stalled}")
  # Every rank raises the same MpiError (and the program exits 3 on each).
  set(every_rank "^rank 0 ${mismatch}" "^rank 1 ${mismatch}")
  if(np EQUAL 3)
    list(APPEND every_rank "^rank 2 ${mismatch}")
  endif()
  rensa_fault_case("mismatch np=${np}" mismatch ${np} 3 30 EXPECT ${every_rank})
  # Without debug mode, through a communicator (issue 20, item 7): the always-on signature check.
  foreach(kind IN ITEMS dtype count)
    if(kind STREQUAL "dtype")
      set(theirs "allreduce.float64, .2,., sum.")
    else()
      set(theirs "allreduce.float32, .3,., sum.")
    endif()
    set(checked "caught: allreduce #[0-9]+ on communicator [0-9]+: rank 1 called ${theirs} but rank 0 called allreduce.float32, .4,., sum.")
    set(every_rank "^rank 0 ${checked}" "^rank 1 ${checked}")
    if(np EQUAL 3)
      list(APPEND every_rank "^rank 2 ${checked}")
    endif()
    rensa_fault_case("mismatch_${kind} np=${np}" mismatch_${kind} ${np} 3 30 EXPECT ${every_rank} FORBID "gave")
    if(np EQUAL 2)
      rensa_fault_case("mismatch_${kind} np=2 network" mismatch_${kind} 2 3 30 ENV ${RENSA_TEST_NETWORK_ENV}
                       EXPECT ${every_rank} FORBID "gave")
    endif()
  endforeach()
  rensa_fault_case("clean np=${np}" clean ${np} 0 30 FORBID "rensa:" "watchdog" "Abort" "BAD TERMINATION" "WARN")
endforeach()
rensa_fault_case("late exit np=3" late_exit 3 0 30 FORBID "rensa:" "watchdog" "Abort" "BAD TERMINATION" "WARN")
# The network path (tests/CMakeLists.txt): ranks that end together, and one that ends 1.5 s after
# the others, exit cleanly there too (MPICH 4.0 over UCX's TCP hangs in MPI_Finalize without the
# exit protocol of Note [Watchdog protocol]).
foreach(np IN ITEMS 2 3)
  rensa_fault_case("clean np=${np} network" clean ${np} 0 30 ENV ${RENSA_TEST_NETWORK_ENV} FORBID "rensa:" "watchdog" "Abort"
                   "BAD TERMINATION" "WARN")
endforeach()
rensa_fault_case("late exit np=3 network" late_exit 3 0 30 ENV ${RENSA_TEST_NETWORK_ENV} FORBID "rensa:" "watchdog" "Abort"
                 "BAD TERMINATION" "WARN")
rensa_fault_case("exit0 np=3 network" exit0 3 nonzero 30 ENV ${RENSA_TEST_NETWORK_ENV} EXPECT "rensa: rank [02]: ${exited}")
# Point to point (no sequence number): rank 0 waits in recv from rank 1.
rensa_fault_case("recv stall" recv_stall 2 nonzero 15 ENV RENSA_WATCHDOG_TIMEOUT=5
                 EXPECT "rensa: rank 0: watchdog: recv .peer 1. on communicator 0 has waited")
rensa_fault_case("recv from an exited rank" recv_exit 2 nonzero 30
                 EXPECT "rensa: rank 0: rank 1 exited after entering 5 operations on communicator 0 while rank 0 waits in recv .peer 1.")
# MPI initialised by the program: rensa uses it, stops its watchdog when the program calls
# MPI_Finalize, and refuses a thread level below MPI_THREAD_MULTIPLE.
rensa_fault_case("external MPI np=2" external 2 0 30 FORBID "rensa:" "watchdog" "Abort" "BAD TERMINATION" "WARN")
rensa_fault_case("external MPI without threads np=2" external_single 2 4 30
                 EXPECT "^rank 1 caught: MPI initialisation: rensa needs MPI_THREAD_MULTIPLE")
rensa_fault_case("exit1" exit1 2 nonzero 30 EXPECT "rensa: rank 0: ${exited}")
# A rank that ends without rensa's exit (issue 20, item 2): its watcher names it and the job fails, even
# after _exit(0) (Note [Exit guard] in distributed/detail/exit_guard.cc). The watcher reads the status
# unless mpiexec reaped the rank first (then its line says "ended"). A signal rensa handles (SIGSEGV,
# SIGTERM, ...) is named once, by the rank itself.
set(early "pid [0-9]+, before the other ranks finished")
set(ended "ended, ${early}, without rensa's exit .mpiexec reaped it")
foreach(np IN ITEMS 2 3)
  rensa_fault_case("_exit0 np=${np}" _exit0 ${np} 1 30
                   EXPECT "^rensa: rank 1: (exited with status 0, ${early}, without rensa's exit|${ended})")
endforeach()
rensa_fault_case("_exit0 np=3 network" _exit0 3 1 30 ENV ${RENSA_TEST_NETWORK_ENV}
                 EXPECT "^rensa: rank 1: (exited with status 0, ${early}, without rensa's exit|${ended})")
rensa_fault_case("_exit1" _exit1 2 nonzero 30 EXPECT "^rensa: rank 1: (exited with status 1, ${early}$|${ended})")
rensa_fault_case("sigkill" sigkill 2 nonzero 30 EXPECT "^rensa: rank 1: (killed by signal 9 .SIGKILL., ${early}$|${ended})")
rensa_fault_case("sigterm np=3" sigterm 3 nonzero 30 EXPECT "^rensa: rank 1: killed by signal 15, pid [0-9]+$"
                 FORBID "${early}")
rensa_fault_case("segfault named once" segfault 2 nonzero 30 EXPECT "^rensa: rank 1: killed by signal 11, pid [0-9]+$"
                 FORBID "${early}")
rensa_fault_case("uncaught exception" exception 2 nonzero 30 EXPECT "rensa: rank 1: uncaught exception: boom on rank 1")
rensa_fault_case("unresponsive rank" freeze 2 nonzero 15 ENV RENSA_WATCHDOG_TIMEOUT=5
                 EXPECT "rensa: rank 0: watchdog: allreduce #5 .* did not answer .unresponsive.: 1")
