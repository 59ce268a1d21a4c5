// rensa._core.distributed (chainermn): communicators, multi-node optimizer and evaluator,
// scatter_dataset, point-to-point functions, multi-node links and extensions. The pickling
// object collectives and chainermn's module layout live in python/rensa/distributed.
#include "distributed/communicator.h"
#include "python/src/distributed.h"

namespace rensa::python {

void bind_distributed(py::module_& m) {
    py::module_ dist = m.def_submodule("distributed", "chainermn's API over rensa::distributed (MPI)");
    // Registered after core's translators, so tried before the generic rensa::Error one.
    py::register_exception<rensa::distributed::MpiError>(dist, "MpiError", PyExc_RuntimeError);
    distributed_bind::bind_communicator(dist);
    distributed_bind::bind_training_parts(dist);
    distributed_bind::bind_graph_parts(dist);
}

}  // namespace rensa::python
