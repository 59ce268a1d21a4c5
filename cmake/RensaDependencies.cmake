# Finds the required libraries and detects each optional part, saying what it found.

find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(PkgConfig REQUIRED)
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)
message(STATUS "OpenBLAS: found ${OPENBLAS_VERSION} (${OPENBLAS_LINK_LIBRARIES})")

# Debian's dnnl-config.cmake insists on OpenCL, so find the library and header directly.
set(RENSA_DNNL_FOUND OFF)
if(RENSA_WITH_DNNL)
  find_library(RENSA_DNNL_LIBRARY dnnl)
  find_path(RENSA_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
endif()
if(NOT RENSA_WITH_DNNL)
  message(STATUS "oneDNN: disabled by RENSA_WITH_DNNL=OFF (convolution uses im2col + GEMM)")
elseif(RENSA_DNNL_LIBRARY AND RENSA_DNNL_INCLUDE_DIR)
  set(RENSA_DNNL_FOUND ON)
  # A target, not the path, in rensa_core's link interface: the installed package's config
  # (cmake/rensaConfig.cmake.in) finds the library again on the consumer's machine.
  add_library(rensa_deps::dnnl UNKNOWN IMPORTED)
  set_target_properties(rensa_deps::dnnl PROPERTIES IMPORTED_LOCATION ${RENSA_DNNL_LIBRARY}
                                                    INTERFACE_INCLUDE_DIRECTORIES ${RENSA_DNNL_INCLUDE_DIR})
  message(STATUS "oneDNN: found ${RENSA_DNNL_LIBRARY}")
else()
  message(STATUS "oneDNN: not found (convolution uses im2col + GEMM)")
endif()

# --- Python: prefer the project's .venv ---------------------------------------------
set(RENSA_PYTHON_FOUND OFF)
if(RENSA_WITH_PYTHON)
  if(NOT Python_EXECUTABLE AND EXISTS ${PROJECT_SOURCE_DIR}/.venv/bin/python)  # pip install . sets its own
    set(Python_EXECUTABLE ${PROJECT_SOURCE_DIR}/.venv/bin/python)
  endif()
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    set(_pybind11_dir ${pybind11_DIR})
    if(NOT _pybind11_dir)
      execute_process(COMMAND ${Python_EXECUTABLE} -m pybind11 --cmakedir OUTPUT_VARIABLE _pybind11_dir
                      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
    if(_pybind11_dir)
      set(pybind11_DIR ${_pybind11_dir})
      find_package(pybind11 3 CONFIG QUIET)
    endif()
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(RENSA_PYTHON_FOUND ON)
    message(STATUS "Python: found ${Python_VERSION} at ${Python_EXECUTABLE}, pybind11 ${pybind11_VERSION}")
  else()
    message(STATUS "Python: not found (need Python with pybind11 >= 3; run scripts/install-deps.sh), bindings off")
  endif()
else()
  message(STATUS "Python: disabled by RENSA_WITH_PYTHON=OFF")
endif()

# --- MPI ------------------------------------------------------------------------------
set(RENSA_MPI_FOUND OFF)
if(RENSA_WITH_MPI)
  find_package(MPI QUIET COMPONENTS C)
  if(MPI_C_FOUND)
    set(RENSA_MPI_FOUND ON)
    # We use MPI's C API only. Open MPI's mpi.h (the GPU machine's MPI) otherwise pulls in
    # its C++ bindings, whose symbols live in a library we do not link (libmpi_cxx).
    set_property(TARGET MPI::MPI_C APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
    message(STATUS "MPI: found MPI ${MPI_C_VERSION} (${MPI_C_LIB_NAMES}), mpiexec ${MPIEXEC_EXECUTABLE}")
  else()
    message(STATUS "MPI: not found, distributed module off")
  endif()
else()
  message(STATUS "MPI: disabled by RENSA_WITH_MPI=OFF")
endif()

# --- CUDA (+ cuBLAS, cuDNN; NCCL for the distributed module) --------------------------
# RENSA_CUDNN_ROOT / RENSA_NCCL_ROOT point at installs outside the toolkit (the
# nvidia-cudnn / nvidia-nccl wheels that PyTorch brings, say: scripts/gpu-check.sh).
set(RENSA_CUDA_FOUND OFF)
set(RENSA_NCCL_FOUND OFF)
if(RENSA_WITH_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # sm_90 code plus compute_90 PTX for newer GPUs
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc's C++20 flag (later versions do); .cu files need C++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit QUIET)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    find_library(RENSA_CUDNN_LIBRARY cudnn HINTS ${RENSA_CUDNN_ROOT} ${CUDAToolkit_LIBRARY_DIR}
                 PATH_SUFFIXES lib lib64)
    find_path(RENSA_CUDNN_INCLUDE_DIR cudnn.h HINTS ${RENSA_CUDNN_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
              PATH_SUFFIXES include)
    find_library(RENSA_NCCL_LIBRARY nccl HINTS ${RENSA_NCCL_ROOT} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)
    find_path(RENSA_NCCL_INCLUDE_DIR nccl.h HINTS ${RENSA_NCCL_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
              PATH_SUFFIXES include)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND RENSA_CUDNN_LIBRARY AND RENSA_CUDNN_INCLUDE_DIR)
    set(RENSA_CUDA_FOUND ON)
    message(STATUS "CUDA: found ${CUDAToolkit_VERSION} at ${CUDAToolkit_TARGET_DIR} with cuDNN "
                   "${RENSA_CUDNN_LIBRARY}, building kernels for ${CMAKE_CUDA_ARCHITECTURES}")
    if(RENSA_NCCL_LIBRARY AND RENSA_NCCL_INCLUDE_DIR)
      set(RENSA_NCCL_FOUND ON)
      message(STATUS "NCCL: found ${RENSA_NCCL_LIBRARY} (pure_nccl and hierarchical communicators)")
    else()
      message(STATUS "NCCL: not found (set RENSA_NCCL_ROOT), NCCL communicators off")
    endif()
  elseif(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    message(STATUS "CUDA: cuDNN not found (set RENSA_CUDNN_ROOT), CUDA backend off")
  else()
    message(STATUS "CUDA: not found, CUDA backend off")
  endif()
else()
  message(STATUS "CUDA: disabled by RENSA_WITH_CUDA=OFF")
endif()
