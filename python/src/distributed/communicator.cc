// Communicator (chainermn.CommunicatorBase) and create_communicator. Array collectives take
// anything array-like and return numpy arrays (ndarrays off the CPU); the byte collectives
// (_*_bytes) are what python/rensa/distributed pickles objects through. Every collective
// releases the GIL while it waits on the other ranks.
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "distributed/communicator.h"
#include "distributed/communicators/mpi_communicator_base.h"
#include "distributed/detail/mpi_runtime.h"
#include "python/src/convert/tuple.h"
#include "python/src/distributed/distributed.h"

namespace rensa::python::distributed_bind {
namespace {
namespace dist = rensa::distributed;
using dist::Communicator;
using dist::CommunicatorPtr;

dist::ReduceOp parse_op(const std::string& op) {
    if (op == "sum") return dist::ReduceOp::kSum;
    if (op == "mean") return dist::ReduceOp::kMean;
    if (op == "max") return dist::ReduceOp::kMax;
    if (op == "min") return dist::ReduceOp::kMin;
    throw py::value_error("Communicator.allreduce: op='" + op + "' is not one of 'sum', 'mean', 'max', 'min'");
}

std::string to_bytes(py::handle obj) { return obj.is_none() ? std::string{} : obj.cast<std::string>(); }

py::list to_bytes_list(const std::vector<std::string>& items) {
    py::list result;
    for (const std::string& item : items) result.append(py::bytes(item));
    return result;
}

// Runs fn() without the GIL (a collective waits on the other ranks).
template <class F>
auto nogil(F&& fn) {
    py::gil_scoped_release release;
    return fn();
}

void bind_array_collectives(py::classh<Communicator>& cls) {
    cls.def(
           "allreduce",
           [](Communicator& c, py::handle x, const std::string& op) {
               const Array a = to_array(x);
               return to_numpy(nogil([&] { return c.allreduce(a, parse_op(op)); }));
           },
           py::arg("x"), py::arg("op") = "sum", "Elementwise reduction over the ranks: 'sum', 'mean', 'max', 'min'.")
        .def(
            "bcast",
            [](Communicator& c, py::handle x, int root) {
                const Array a = to_array_or_undefined(x);
                return to_numpy(nogil([&] { return c.bcast(a, root); }));
            },
            py::arg("data") = py::none(), py::arg("root") = 0, "Root's array on every rank (others may pass None).")
        .def(
            "gather",
            [](Communicator& c, py::handle x, int root) -> py::object {
                const Array a = to_array(x);
                auto arrays = nogil([&] { return c.gather(a, root); });
                if (c.rank() != root) return py::none();
                return to_tuple(arrays);
            },
            py::arg("data"), py::arg("root") = 0, "Every rank's array in rank order on root (a tuple); None elsewhere.")
        .def(
            "allgather",
            [](Communicator& c, py::handle x) {
                const Array a = to_array(x);
                return to_tuple(nogil([&] { return c.allgather(a); }));
            },
            py::arg("x"), "Every rank's array in rank order (a tuple), on every rank.")
        .def(
            "scatter",
            [](Communicator& c, py::handle xs, int root) {
                const std::vector<Array> arrays = c.rank() == root ? to_arrays(xs) : std::vector<Array>{};
                return to_numpy(nogil([&] { return c.scatter(arrays, root); }));
            },
            py::arg("xs") = py::none(), py::arg("root") = 0,
            "Root's xs[i] (a sequence of size arrays, or an array of leading dim size) to rank i.")
        .def(
            "alltoall",
            [](Communicator& c, py::handle xs) {
                const std::vector<Array> arrays = to_arrays(xs);
                return to_tuple(nogil([&] { return c.alltoall(arrays); }));
            },
            py::arg("xs"), "xs[j] to rank j; returns what each rank sent here, in rank order.")
        .def(
            "send",
            [](Communicator& c, py::handle x, int dest, int tag) {
                const Array a = to_array(x);
                nogil([&] {
                    c.send(a, dest, tag);
                    return 0;
                });
            },
            py::arg("data"), py::arg("dest"), py::arg("tag") = 0,
            "Sends the array ``data`` to rank ``dest`` (its shape and dtype travel with it); ``recv`` on ``dest`` "
            "receives it.")
        .def(
            "recv",
            [](Communicator& c, int source, int tag) { return to_numpy(nogil([&] { return c.recv(source, tag); })); },
            py::arg("source"), py::arg("tag") = 0,
            "Receives the array that rank ``source`` sent with ``send`` (a numpy array on the CPU).")
        .def(
            "split", [](Communicator& c, int color, int key) { return nogil([&] { return c.split(color, key); }); },
            py::arg("color"), py::arg("key"),
            "MPI_Comm_split: a new communicator of the ranks with ``color``, by ``key``.");
}

void bind_byte_collectives(py::classh<Communicator>& cls) {
    cls.def(
           "_bcast_bytes",
           [](Communicator& c, py::handle obj, int root) {
               const std::string bytes = to_bytes(obj);
               return py::bytes(nogil([&] { return c.bcast_obj(bytes, root); }));
           },
           py::arg("obj"), py::arg("root") = 0)
        .def(
            "_gather_bytes",
            [](Communicator& c, py::handle obj, int root) {
                const std::string bytes = to_bytes(obj);
                return to_bytes_list(nogil([&] { return c.gather_obj(bytes, root); }));
            },
            py::arg("obj"), py::arg("root") = 0)
        .def(
            "_allgather_bytes",
            [](Communicator& c, py::handle obj) {
                const std::string bytes = to_bytes(obj);
                return to_bytes_list(nogil([&] { return c.allgather_obj(bytes); }));
            },
            py::arg("obj"))
        .def(
            "_send_bytes",
            [](Communicator& c, py::handle obj, int dest, int tag) {
                const std::string bytes = to_bytes(obj);
                nogil([&] {
                    c.send_obj(bytes, dest, tag);
                    return 0;
                });
            },
            py::arg("obj"), py::arg("dest"), py::arg("tag") = 0)
        .def(
            "_recv_bytes",
            [](Communicator& c, int source, int tag) {
                return py::bytes(nogil([&] { return c.recv_obj(source, tag); }));
            },
            py::arg("source"), py::arg("tag") = 0)
        .def(
            "_allreduce_scalar",
            [](Communicator& c, double value, const std::string& op) {
                return nogil([&] { return c.allreduce_obj(value, parse_op(op)); });
            },
            py::arg("value"), py::arg("op") = "sum");
}

void bind_model_collectives(py::classh<Communicator>& cls) {
    cls.def("bcast_data", &Communicator::bcast_data, py::arg("model"), py::call_guard<py::gil_scoped_release>(),
            "Broadcasts model's parameters and persistents from rank 0 (MpiError when ranks' models differ).")
        .def("multi_node_mean_grad", &Communicator::multi_node_mean_grad, py::arg("model"),
             py::arg("zero_fill") = false, py::call_guard<py::gil_scoped_release>(),
             "Averages model's grads over the ranks.")
        .def("allreduce_grad", &Communicator::allreduce_grad, py::arg("model"), py::arg("zero_fill") = false,
             py::call_guard<py::gil_scoped_release>(), "Chainer's older name of multi_node_mean_grad.")
        .def("barrier", &Communicator::barrier, py::call_guard<py::gil_scoped_release>(),
             "Waits until every rank has called it (MPI_Barrier).")
        // MPI is finalized at exit, once for every communicator; chainermn scripts call this.
        .def(
            "finalize", [](Communicator&) {},
            "Does nothing: rensa finalizes MPI once at exit, for every communicator (chainermn scripts call it).");
}

}  // namespace

void bind_communicator(py::module_& m) {
    py::classh<Communicator> cls(
        m, "CommunicatorBase",
        R"doc(A communicator over the processes of an MPI job (chainermn.CommunicatorBase); make one with
``create_communicator``.

It gives the job's topology (``rank``, ``size``, ``intra_rank``, ...), array collectives
(``allreduce``, ``bcast``, ``gather``, ``allgather``, ``scatter``, ``alltoall``, ``send``,
``recv``), object collectives (``bcast_obj``, ``gather_obj``, ``allgather_obj``, ``send_obj``,
``recv_obj``) and the model collectives (``bcast_data``, ``multi_node_mean_grad``). Every
collective must be called by every rank, in the same order. The GIL is released while one waits.)doc");
    cls.def_property_readonly("name", &Communicator::name,
                              "The communicator's kind: ``'flat'``, ``'naive'``, ``'dummy'``, ...")
        .def_property_readonly("rank", &Communicator::rank, "This process's rank in the communicator.")
        .def_property_readonly("size", &Communicator::size, "The number of ranks.")
        .def_property_readonly("intra_rank", &Communicator::intra_rank, "This process's rank among those on its node.")
        .def_property_readonly("intra_size", &Communicator::intra_size, "The number of ranks on this node.")
        .def_property_readonly("inter_rank", &Communicator::inter_rank, "This node's index among the nodes.")
        .def_property_readonly("inter_size", &Communicator::inter_size, "The number of nodes.")
        .def_property_readonly(
            "allreduce_grad_dtype",
            [](const Communicator& c) -> py::object {
                const auto& dtype = c.options().allreduce_grad_dtype;
                return dtype ? dtype_to_python(*dtype) : py::none();
            },
            "The dtype in which ``multi_node_mean_grad`` reduces gradients (float16/bfloat16 grads are cast to it "
            "and back), or None to reduce each grad in its own dtype.")
        // What rensa.distributed's comm.mpi_comm wraps with mpi4py (MPI.Comm.f2py): the Fortran
        // handle (MPI_Comm_c2f) of this communicator's own MPI communicator, no copy.
        .def_property_readonly("_mpi_comm_fortran_handle",
                               [](const Communicator& c) {
                                   const auto* mpi = dynamic_cast<const dist::MpiCommunicatorBase*>(&c);
                                   RENSA_CHECK(mpi != nullptr, NotImplementedError, "Communicator.mpi_comm: the '",
                                               c.name(), "' communicator has no MPI communicator");
                                   return static_cast<int64_t>(MPI_Comm_c2f(mpi->handle().comm()));
                               })
        .def("__repr__", [](const Communicator& c) {
            return "<rensa.distributed communicator '" + c.name() + "' rank " + std::to_string(c.rank()) + " of " +
                   std::to_string(c.size()) + ">";
        });
    bind_array_collectives(cls);
    bind_byte_collectives(cls);
    bind_model_collectives(cls);

    m.def(
        "create_communicator",
        [](const std::string& name, py::handle mpi_comm, py::handle allreduce_grad_dtype, bool debug) {
            if (!mpi_comm.is_none()) {
                throw py::value_error(
                    "create_communicator: mpi_comm must be None (rensa uses MPI_COMM_WORLD; use comm.split for "
                    "sub-communicators)");
            }
            dist::CommunicatorOptions options{.debug = debug};
            if (!allreduce_grad_dtype.is_none()) options.allreduce_grad_dtype = to_dtype(allreduce_grad_dtype);
            return nogil([&] { return dist::create_communicator(name, options); });
        },
        py::arg("communicator_name") = "flat", py::arg("mpi_comm") = py::none(),
        py::arg("allreduce_grad_dtype") = py::none(), py::arg("debug") = false,
        "chainermn.create_communicator: 'flat', 'naive', 'dummy' (and 'pure_nccl', 'hierarchical' with CUDA). "
        "MPI starts here.");
}

}  // namespace rensa::python::distributed_bind
