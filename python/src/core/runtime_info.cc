// rensa._core.runtime_info(): what this build of rensa has, for print_runtime_info.
#include <omp.h>

#include <string>

#include "core/backend.h"
#include "core/native/gemm_dnnl.h"
#include "python/src/bind.h"
#include "python/src/core/cuda.h"

namespace rensa::python {
namespace {

int cuda_device_count() {
    const Context& context = global_context();
    if (!context.has_backend(DeviceKind::kCuda)) return 0;
    return context.backend(DeviceKind::kCuda).device_count();
}

// The MPI library's own version line once rensa.distributed loaded it (rensa._distributed),
// else what configure found: a report loads no MPI (Note [Lazy native libraries]). "" without MPI.
std::string mpi_version() {
    if (!RENSA_PY_WITH_MPI) return "";
    const py::dict modules = py::module_::import("sys").attr("modules");
    if (modules.contains("rensa._distributed")) {
        return modules["rensa._distributed"].attr("mpi_version")().cast<std::string>();
    }
    return RENSA_PY_MPI_CONFIGURED;
}

}  // namespace

void bind_runtime_info(py::module_& m) {
    bind_cuda(m);  // first: installs the CUDA backend's stand-in, which cuda_device_count() below asks
    m.def("cuda_device_count", &cuda_device_count, "Number of CUDA devices rensa can use (0 without CUDA).");
    m.def("runtime_info", [] {
        py::dict info;
        info["rensa"] = RENSA_VERSION_STRING;
        info["pybind11"] = RENSA_PY_PYBIND11_VERSION;
        info["openblas"] = RENSA_PY_OPENBLAS_VERSION;
        info["onednn"] = static_cast<bool>(RENSA_PY_WITH_ONEDNN);
        info["bf16_matmul"] = native::bf16_gemm_info();  // CPU feature query only: no JIT
        info["openmp_threads"] = omp_get_max_threads();
        info["cuda_built"] = static_cast<bool>(RENSA_PY_WITH_CUDA);
        info["cuda_devices"] = cuda_device_count();
        info["cudnn"] = static_cast<bool>(RENSA_PY_WITH_CUDA);  // cuDNN is required by the CUDA backend
        info["nccl"] = static_cast<bool>(RENSA_PY_WITH_CUDA) && static_cast<bool>(RENSA_PY_WITH_MPI);
        info["mpi"] = static_cast<bool>(RENSA_PY_WITH_MPI);
        info["mpi_version"] = mpi_version();
        return info;
    });
}

}  // namespace rensa::python
