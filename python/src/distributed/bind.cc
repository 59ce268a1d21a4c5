// rensa._distributed (chainermn): communicators, multi-node optimizer and evaluator,
// scatter_dataset, point-to-point functions, multi-node links and extensions. An extension of
// its own, so that only rensa.distributed loads MPI (Note [Lazy native libraries],
// python/CMakeLists.txt). The pickling object collectives and chainermn's module layout live
// in python/rensa/distributed.
#include <mpi.h>

#include <string>

#include "distributed/communicator.h"
#include "python/src/distributed/distributed.h"
#include "python/src/gc_support.h"

namespace rensa::python {
namespace {

// The MPI library's own version line (callable before MPI_Init).
std::string mpi_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
    std::string out(text, static_cast<size_t>(length));
    const auto end = out.find_first_of("\n\r");
    return end == std::string::npos ? out : out.substr(0, end);
}

}  // namespace
}  // namespace rensa::python

PYBIND11_MODULE(_distributed, m) {
    using namespace rensa::python;
    py::module_::import("rensa._core");  // the classes this module's derive from and take
    m.doc() = "chainermn's API over rensa::distributed (MPI)";
    m.def("mpi_version", &mpi_version, "The MPI library's version line (for print_runtime_info).");
    // Registered after core's translators, so tried before the generic rensa::Error one.
    py::register_exception<rensa::distributed::MpiError>(m, "MpiError", PyExc_RuntimeError).attr("__doc__") =
        "An MPI call failed, or the ranks disagreed in a collective (a RuntimeError; the message "
        "names the MPI call or the operations the ranks called).";
    distributed_bind::bind_communicator(m);
    distributed_bind::bind_training_parts(m);
    distributed_bind::bind_graph_parts(m);
    gc_support::install(m);  // last: after every class is registered
}
