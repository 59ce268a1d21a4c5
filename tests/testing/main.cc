// Catch2's main for every test executable. With RENSA_TEST_ON_CUDA (CMake option, off by
// default; scripts/gpu-check.sh turns it on) rensa_testing links rensa_cuda and the CUDA
// backend is installed before the tests run, so check_function also sweeps cuda:0.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#if defined(RENSA_TESTING_CUDA)
#include "cuda/cuda_backend.h"
#endif

int main(int argc, char* argv[]) {
#if defined(RENSA_TESTING_CUDA)
    rensa::cuda::install_backend();  // installs nothing (and returns 0) without a GPU
#endif
    return Catch::Session().run(argc, argv);
}
