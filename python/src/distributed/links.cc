// rensa.distributed.functions (send, recv, pseudo_connect: differentiable point to point)
// and rensa.distributed.links (MultiNodeChainList, MultiNodeBatchNormalization).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "distributed/distributed.h"
#include "python/src/convert/variables.h"
#include "python/src/distributed/distributed.h"

namespace rensa::python::distributed_bind {
namespace {
namespace dist = rensa::distributed;
using dist::CommunicatorPtr;

// rank_in / rank_out of add_link: None, an int, or a sequence of ints.
dist::MultiNodeChainList::Ranks to_ranks(py::handle obj) {
    if (obj.is_none()) return {};
    if (py::isinstance<py::int_>(obj)) return {obj.cast<int>()};
    return obj.cast<std::vector<int>>();
}

void bind_functions(py::module_& m) {
    py::module_ f = m.def_submodule("functions", "chainermn.functions: differentiable point to point");
    f.def(
        "send",
        [](py::handle x, const CommunicatorPtr& communicator, int rank, int tag) {
            const Variable v = to_variable(x);
            py::gil_scoped_release release;
            return dist::send(v, communicator, rank, tag);
        },
        py::arg("x"), py::arg("communicator"), py::arg("rank"), py::arg("tag") = 0,
        "Sends x to rank; returns the delegate variable whose backward receives x's gradient.");
    f.def(
        "recv",
        [](const CommunicatorPtr& communicator, int rank, py::handle delegate_variable, int tag, py::handle device,
           bool force_tuple) -> py::object {
            (void)device;  // the array arrives on the device it was sent from (host for CPU)
            const Variable delegate = to_variable_or_undefined(delegate_variable);
            Variable y = [&] {
                py::gil_scoped_release release;
                return dist::recv(communicator, rank, delegate, tag);
            }();
            if (force_tuple) return py::make_tuple(y);
            return py::cast(std::move(y));
        },
        py::arg("communicator"), py::arg("rank"), py::arg("delegate_variable") = py::none(), py::arg("tag") = 0,
        py::arg("device") = py::none(), py::arg("force_tuple") = false,
        "Receives a variable sent by send() on rank; its backward sends the gradient back.");
    f.def(
        "pseudo_connect",
        [](py::handle delegate_variable, const py::args& actual_variables) -> py::object {
            const Variable delegate = to_variable(delegate_variable);
            const std::vector<Variable> actual = to_variables(actual_variables);
            if (actual.size() == 1) return py::cast(dist::pseudo_connect(delegate, actual[0]));
            const std::vector<Variable> ys = dist::pseudo_connect(delegate, actual);
            py::tuple out(ys.size());
            for (size_t i = 0; i < ys.size(); ++i) out[i] = py::cast(ys[i]);
            return out;
        },
        py::arg("delegate_variable"),
        "Returns actual_variables unchanged but connected to delegate_variable (one, or a tuple).");
}

void bind_chain_list(py::module_& m) {
    class_with_base<dist::MultiNodeChainList, links::ChainList>(
        m, "MultiNodeChainList", "A ChainList whose components run on different ranks (model parallelism).",
        [](auto cls) {
            cls.def(py::init<CommunicatorPtr>(), py::arg("comm"))
                .def(
                    "add_link",
                    [](dist::MultiNodeChainList& self, std::shared_ptr<links::Link> link, py::handle rank_in,
                       py::handle rank_out) { self.add_link(std::move(link), to_ranks(rank_in), to_ranks(rank_out)); },
                    py::arg("link"), py::arg("rank_in") = py::none(), py::arg("rank_out") = py::none(),
                    "Appends a component receiving from rank_in and sending to rank_out (None, int or list).")
                .def_property_readonly("communicator", &dist::MultiNodeChainList::communicator,
                                       "The communicator the components exchange through.");
            // forward(*xs) and __call__(*xs): a rank without model inputs calls model().
            auto forward = [](dist::MultiNodeChainList& self, const py::args& args) {
                const std::vector<Variable> xs = to_variables(args);
                py::gil_scoped_release release;
                return self.forward(xs);
            };
            cls.def("forward", forward,
                    "Runs this rank's components in order, receiving their inputs from ``rank_in`` and sending their "
                    "outputs to ``rank_out``. Returns the model output connected to the last send, or, on a rank "
                    "without model output, a delegate variable; call ``backward()`` on what it returns, on every "
                    "rank. A rank without model inputs calls it with no arguments.")
                .def("__call__", forward);
        });
}

dist::MultiNodeBatchNormalizationOptions batch_norm_options(double decay, double eps, py::handle dtype, bool use_gamma,
                                                            bool use_beta, py::handle initial_gamma,
                                                            py::handle initial_beta) {
    dist::MultiNodeBatchNormalizationOptions options{
        .decay = decay, .eps = eps, .dtype = to_dtype(dtype), .use_gamma = use_gamma, .use_beta = use_beta};
    // Chainer also takes a scalar or an array as an initializer.
    auto initializer = [](py::handle obj) -> initializers::InitializerPtr {
        if (obj.is_none()) return nullptr;
        if (py::isinstance<py::float_>(obj) || py::isinstance<py::int_>(obj)) {
            return initializers::constant(obj.cast<double>());
        }
        if (py::isinstance<py::array>(obj)) return initializers::from_array(to_array(obj));
        return obj.cast<initializers::InitializerPtr>();
    };
    options.initial_gamma = initializer(initial_gamma);
    options.initial_beta = initializer(initial_beta);
    return options;
}

void bind_batch_normalization(py::module_& m) {
    using BN = dist::MultiNodeBatchNormalization;
    class_with_base<BN, links::Link>(
        m, "MultiNodeBatchNormalization",
        R"doc(Batch normalization whose batch statistics are taken over every rank's batch
(chainermn.links.MultiNodeBatchNormalization).

Ranks may hold batches of different sizes: every rank sees exactly the mean and variance of the
concatenated batch. Every rank must call it the same number of times, in the same order.

Args:
    size: the shape of gamma, beta and the statistics (an int or a tuple).
    comm: the communicator.
    decay (float): the decay rate of the running statistics.
    eps (float): the epsilon added to the variance.
    dtype: the dtype of the parameters and statistics.
    use_gamma (bool): learn a scale.
    use_beta (bool): learn a shift.
    initial_gamma: the initializer of gamma (a scalar, an array or an initializer; None: 1).
    initial_beta: the initializer of beta (None: 0).
    communication_backend (str): accepted for ChainerMN compatibility; the communicator decides.)doc",
        [](auto cls) {
            cls.def(py::init([](py::handle size, CommunicatorPtr comm, double decay, double eps, py::handle dtype,
                                bool use_gamma, bool use_beta, py::handle initial_gamma, py::handle initial_beta,
                                const std::string& communication_backend) {
                        (void)communication_backend;  // the communicator decides (MPI, or NCCL with CUDA)
                        Shape shape;
                        if (py::isinstance<py::int_>(size)) {
                            shape.push_back(size.cast<int64_t>());
                        } else {
                            for (py::handle d : size) shape.push_back(d.cast<int64_t>());
                        }
                        return std::make_shared<BN>(
                            shape, std::move(comm),
                            batch_norm_options(decay, eps, dtype, use_gamma, use_beta, initial_gamma, initial_beta));
                    }),
                    py::arg("size"), py::arg("comm"), py::arg("decay") = 0.9, py::arg("eps") = 2e-5,
                    py::arg("dtype") = "float32", py::arg("use_gamma") = true, py::arg("use_beta") = true,
                    py::arg("initial_gamma") = py::none(), py::arg("initial_beta") = py::none(),
                    py::arg("communication_backend") = "auto")
                .def_readonly("gamma", &BN::gamma, "The scale Parameter (undefined when ``use_gamma=False``).")
                .def_readonly("beta", &BN::beta, "The shift Parameter (undefined when ``use_beta=False``).")
                .def_property_readonly(
                    "avg_mean", [](const BN& self) { return to_numpy(self.avg_mean); },
                    "The running mean over every rank's batches (the same on every rank).")
                .def_property_readonly(
                    "avg_var", [](const BN& self) { return to_numpy(self.avg_var); },
                    "The running unbiased variance over every rank's batches (the same on every rank).")
                .def_readwrite(
                    "N", &BN::N,
                    "Chainer's persistent ``N``, kept so that files keep their keys (rensa does not update it).")
                .def_readwrite("decay", &BN::decay, "The decay rate of the running statistics.")
                .def_readwrite("eps", &BN::eps, "The epsilon added to the variance.");
            auto forward = [](BN& self, py::handle x) {
                const Variable v = to_variable(x);
                py::gil_scoped_release release;
                return self.forward(v);
            };
            cls.def("forward", forward, py::arg("x"),
                    "Normalizes ``x``. In training mode the batch statistics are the mean and variance of the "
                    "union of every rank's batch (a collective: every rank must call it the same number of times) "
                    "and the running statistics are updated identically on every rank; in test mode the running "
                    "statistics are used, locally. The backward is not differentiable again, as in ChainerMN.")
                .def("__call__", forward, py::arg("x"));
        });
}

}  // namespace

void bind_graph_parts(py::module_& m) {
    bind_functions(m);
    py::module_ l = m.def_submodule("links", "chainermn.links");
    bind_chain_list(l);
    bind_batch_normalization(l);
}

}  // namespace rensa::python::distributed_bind
