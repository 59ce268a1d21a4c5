# The soak test (included by tests/CMakeLists.txt when rensa_distributed exists): 2-rank training
# killed at random iterations in random ways and restarted from its multi-node checkpoint, again and
# again; the final parameters must equal those of an uninterrupted run bit for bit
# (tests/distributed/soak/run_soak.py). Here 12 kills over 200 iterations (10-20 s, at most 3
# minutes); `make soak` runs 150 over 2000, on shared memory and on the network path.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_executable(rensa_soak_prog ${CMAKE_CURRENT_LIST_DIR}/main.cc)
target_link_libraries(rensa_soak_prog PRIVATE rensa_distributed rensa_training rensa_optimizers rensa_links
                                              rensa_functions rensa_flags)
add_test(NAME "distributed/soak: kill and resume np=2"
         COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/run_soak.py --mpiexec ${MPIEXEC_EXECUTABLE}
                 --prog $<TARGET_FILE:rensa_soak_prog> --np 2 --iterations 200 --checkpoint-every 5 --kills 12
                 --max-seconds 170)
set_tests_properties("distributed/soak: kill and resume np=2" PROPERTIES TIMEOUT 180 PROCESSORS 2)
