// The training side of rensa.distributed: create_multi_node_optimizer (attribute access
// falls through to the actual optimizer, as chainermn's), create_multi_node_evaluator,
// scatter_dataset / scatter_index for C++ datasets (python/rensa/distributed pickles Python
// ones), and the extensions (checkpointer, early stopping, AllreducePersistent).
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "distributed/distributed.h"
#include "python/src/distributed/distributed.h"
#include "training/trainer.h"

namespace rensa::python::distributed_bind {
namespace {
namespace dist = rensa::distributed;
using dist::CommunicatorPtr;

// Chainer's trigger forms: a (period, unit) tuple, a Trigger object, or None (the default).
training::TriggerArg to_trigger_arg(py::handle obj) {
    if (obj.is_none()) return {};
    if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
        auto seq = obj.cast<py::sequence>();
        if (py::len(seq) != 2)
            throw py::value_error("trigger: expected (period, unit), got a sequence of another length");
        return {seq[0].cast<int64_t>(), seq[1].cast<std::string>()};
    }
    return training::TriggerArg{obj.cast<std::shared_ptr<training::Trigger>>()};
}

void bind_optimizer(py::module_& m) {
    class_with_base<dist::MultiNodeOptimizer, optimizers::Optimizer>(
        m, "_MultiNodeOptimizer", "Averages grads over the ranks before the actual optimizer updates.", [](auto cls) {
            cls.def_property_readonly("actual_optimizer", &dist::MultiNodeOptimizer::actual_optimizer_ptr)
                .def_property_readonly("communicator", &dist::MultiNodeOptimizer::communicator)
                // Only for names the decorator lacks (chainermn's __getattr__): lr, alpha, hooks...
                .def("__getattr__",
                     [](const dist::MultiNodeOptimizer& self, const std::string& name) {
                         return py::getattr(py::cast(self.actual_optimizer_ptr()), name.c_str());
                     })
                .def("__setattr__", [](py::object self, const py::str& name, py::object value) {
                    if (py::hasattr(py::type::of(self), name)) {
                        py::module_::import("builtins").attr("object").attr("__setattr__")(self, name, value);
                    } else {
                        py::setattr(py::cast(self.cast<dist::MultiNodeOptimizer&>().actual_optimizer_ptr()), name,
                                    value);
                    }
                });
            // With Optimizer bound (the full build) setup/update are inherited and dispatch to
            // the decorator virtually, keeping update(lossfun, *args).
            if constexpr (std::is_same_v<decltype(cls), py::classh<dist::MultiNodeOptimizer>>) {
                cls.def("setup", &dist::MultiNodeOptimizer::setup, py::arg("link"),
                        py::return_value_policy::reference_internal)
                    .def(
                        "update",
                        [](dist::MultiNodeOptimizer& self) {
                            py::gil_scoped_release release;
                            self.update();
                        },
                        "Collective: averages the grads over the ranks, then the actual optimizer updates.");
            }
        });
    m.def(
        "create_multi_node_optimizer",
        [](std::shared_ptr<optimizers::Optimizer> actual_optimizer, CommunicatorPtr communicator, bool double_buffering,
           bool zero_fill, bool overlap, int64_t bucket_size_bytes) {
            return std::make_shared<dist::MultiNodeOptimizer>(
                std::move(actual_optimizer), std::move(communicator),
                dist::MultiNodeOptimizerOptions{.double_buffering = double_buffering,
                                                .zero_fill = zero_fill,
                                                .overlap = overlap,
                                                .bucket_size_bytes = bucket_size_bytes});
        },
        py::arg("actual_optimizer"), py::arg("communicator"), py::arg("double_buffering") = false,
        py::arg("zero_fill") = true, py::kw_only(), py::arg("overlap") = true,
        py::arg("bucket_size_bytes") = int64_t{25} << 20,
        R"doc(Wraps an optimizer so that it averages the gradients over the ranks before updating
(chainermn.create_multi_node_optimizer).

At the first update (and whenever the target's parameters change, as after a lazy link's
initialization) the parameters are broadcast from rank 0; unlike ChainerMN that update is
skipped only when the broadcast changed something. Attributes not found on the wrapper are the
actual optimizer's. Every rank must call ``update`` (a collective).

Args:
    actual_optimizer: the optimizer that updates the parameters.
    communicator: the communicator the gradients are averaged over.
    double_buffering (bool): reduce the gradients of step t while step t + 1 computes its own;
        the parameters then lag one step behind.
    zero_fill (bool): reduce a parameter without a gradient as zeros (it gets the averaged grad);
        False leaves it None.
    overlap (bool): start reducing gradient buckets during backward.
    bucket_size_bytes (int): the target size of one gradient bucket.)doc");
}

// Note [Stock evaluators from Python]: an Evaluator made in Python is always its trampoline
// type, so MultiNodeEvaluator (which runs the exact per-example pass only for the stock C++
// class) would take it for a custom evaluate() and average per-rank means. When Python did
// not override evaluate(), a stock Evaluator over the same iterators, targets and options
// (converter, device, eval_func, eval_hook) takes its place.
std::shared_ptr<training::extensions::Evaluator> stock_if_not_overridden(
    std::shared_ptr<training::extensions::Evaluator> actual) {
    using training::extensions::Evaluator;
    if (!actual || typeid(*actual) == typeid(Evaluator)) return actual;
    if (py::get_override(static_cast<const Evaluator*>(actual.get()), "evaluate")) return actual;
    auto stock = std::make_shared<Evaluator>(actual->get_all_iterators(), actual->get_all_targets(), actual->options());
    stock->set_name(actual->name());
    return stock;
}

void bind_evaluator(py::module_& m) {
    class_with_base<dist::MultiNodeEvaluator, training::extensions::Evaluator>(
        m, "_MultiNodeEvaluator", "An Evaluator whose metrics are exact means over every rank's shard.", [](auto cls) {
            cls.def_property_readonly("actual_evaluator", &dist::MultiNodeEvaluator::actual)
                .def_property_readonly("communicator", &dist::MultiNodeEvaluator::communicator)
                .def(
                    "evaluate",
                    [](dist::MultiNodeEvaluator& self) {
                        Observation result = [&] {
                            py::gil_scoped_release release;
                            return self.evaluate();
                        }();
                        py::dict out;
                        for (const auto& [key, value] : result) out[py::str(key)] = to_numpy(value);
                        return out;
                    },
                    "Collective: the metrics over every rank's data, the same on every rank.");
        });
    m.def(
        "create_multi_node_evaluator",
        [](std::shared_ptr<training::extensions::Evaluator> actual_evaluator, CommunicatorPtr communicator) {
            return std::make_shared<dist::MultiNodeEvaluator>(stock_if_not_overridden(std::move(actual_evaluator)),
                                                              std::move(communicator));
        },
        py::arg("actual_evaluator"), py::arg("communicator"),
        R"doc(Wraps an Evaluator so that every rank reports the same metrics, computed over the union of the
ranks' validation shards (chainermn.create_multi_node_evaluator).

Each metric is the per-example mean over the whole validation set (ChainerMN averages the ranks'
means, which differs when the shards differ in length). An evaluator whose class overrides
``evaluate`` is called as is and its ranks' means are averaged, as ChainerMN does. The wrapper
is registered under the actual evaluator's name, trigger and priority.

Args:
    actual_evaluator: the Evaluator each rank runs on its shard.
    communicator: the communicator the metrics are reduced over.)doc");
}

void bind_datasets(py::module_& m) {
    m.def("_is_native_dataset", [](py::handle obj) { return py::isinstance<training::Dataset>(obj); });
    m.def(
        "_scatter_dataset",
        [](py::handle dataset, const CommunicatorPtr& comm, int root, bool shuffle, uint64_t seed,
           bool force_equal_length) {
            training::DatasetPtr data =
                dataset.is_none() ? nullptr : dataset.cast<std::shared_ptr<training::Dataset>>();
            py::gil_scoped_release release;
            return dist::scatter_dataset(
                data, comm, {.shuffle = shuffle, .seed = seed, .root = root, .force_equal_length = force_equal_length});
        },
        py::arg("dataset"), py::arg("comm"), py::arg("root"), py::arg("shuffle"), py::arg("seed"),
        py::arg("force_equal_length"));
    m.def(
        "scatter_index",
        [](int64_t n_total_samples, const CommunicatorPtr& comm, int root, bool force_equal_length) {
            py::gil_scoped_release release;
            const dist::IndexShard shard =
                dist::scatter_index(n_total_samples, comm, {.root = root, .force_equal_length = force_equal_length});
            return std::make_pair(shard.begin, shard.end);
        },
        py::arg("n_total_samples"), py::arg("comm"), py::arg("root") = 0, py::kw_only(),
        py::arg("force_equal_length") = true,
        "chainermn.scatter_index: this rank's (begin, end) of range(n_total_samples). Collective.");
    m.def("_shard_range", &dist::detail::shard_range, py::arg("n"), py::arg("size"), py::arg("rank"),
          py::arg("force_equal_length"));
}

void bind_checkpointer(py::module_& m) {
    class_with_base<dist::MultiNodeCheckpointer, training::Extension>(
        m, "_MultiNodeCheckpointer", "Per-rank snapshots; maybe_load resumes at the newest common one.", [](auto cls) {
            cls.def(
                   "maybe_load",
                   [](dist::MultiNodeCheckpointer& self, training::Trainer& trainer, py::handle optimizer,
                      const std::optional<std::string>& path) {
                       (void)optimizer;  // rensa's multi-node optimizer re-broadcasts harmlessly
                       py::gil_scoped_release release;
                       return self.maybe_load(trainer, {.path = path.value_or("")});
                   },
                   py::arg("trainer"), py::arg("optimizer") = py::none(), py::arg("path") = py::none(),
                   "Collective: loads the newest checkpoint every rank has; returns its iteration or None.")
                .def("save", py::overload_cast<training::Trainer&, int64_t>(&dist::MultiNodeCheckpointer::save),
                     py::arg("trainer"), py::arg("iteration"), py::call_guard<py::gil_scoped_release>())
                .def("get_stats", &dist::MultiNodeCheckpointer::get_stats)
                .def("filename", &dist::MultiNodeCheckpointer::filename, py::arg("iteration"))
                .def_property_readonly("iterations", &dist::MultiNodeCheckpointer::iterations);
        });
    m.def(
        "create_multi_node_checkpointer",
        [](std::string name, CommunicatorPtr comm, int64_t cp_interval, int64_t gc_interval,
           const std::optional<std::string>& path, bool cleanup) {
            return dist::create_multi_node_checkpointer(std::move(name), std::move(comm),
                                                        {.cp_interval = cp_interval,
                                                         .gc_interval = gc_interval,
                                                         .path = path.value_or(""),
                                                         .cleanup = cleanup});
        },
        py::arg("name"), py::arg("comm"), py::arg("cp_interval") = 5, py::arg("gc_interval") = 5,
        py::arg("path") = py::none(), py::kw_only(), py::arg("cleanup") = true,
        R"doc(An extension that snapshots each rank's state to ``<path>/<name>.<rank>.<iteration>``
(chainermn.create_multi_node_checkpointer); ``maybe_load(trainer)`` resumes a restarted job at the
newest iteration whose checkpoint exists on every rank.

Args:
    name (str): the name of the run in the file names.
    comm: the communicator.
    cp_interval (int): the number of checkpoints kept (the newest common ones).
    gc_interval (int): the number of saves between two collections of old checkpoints.
    path (str): the folder (None: the trainer's ``out``).
    cleanup (bool): remove the files when training ends without an error.)doc");
}

void bind_extensions(py::module_& m) {
    class_with_base<dist::MultiNodeEarlyStoppingTrigger, training::Trigger>(
        m, "MultiNodeEarlyStoppingTrigger",
        "An EarlyStoppingTrigger (same arguments, after ``comm``) that compares the mean of the monitored value over "
        "every rank, so every rank stops at the same iteration.",
        [](auto cls) {
            cls.def(py::init([](CommunicatorPtr comm, py::handle check_trigger, std::string monitor, int64_t patience,
                                std::string mode, bool verbose, py::handle max_trigger) {
                        return std::make_shared<dist::MultiNodeEarlyStoppingTrigger>(
                            std::move(comm),
                            training::triggers::EarlyStoppingOptions{.check_trigger = to_trigger_arg(check_trigger),
                                                                     .monitor = std::move(monitor),
                                                                     .patience = patience,
                                                                     .mode = std::move(mode),
                                                                     .verbose = verbose,
                                                                     .max_trigger = to_trigger_arg(max_trigger)});
                    }),
                    py::arg("comm"), py::arg("check_trigger") = py::make_tuple(1, "epoch"),
                    py::arg("monitor") = "main/loss", py::arg("patience") = 3, py::arg("mode") = "auto",
                    py::arg("verbose") = false, py::arg("max_trigger") = py::make_tuple(100, "epoch"))
                .def("__call__", &dist::MultiNodeEarlyStoppingTrigger::operator(), py::arg("trainer"),
                     py::call_guard<py::gil_scoped_release>())
                .def_property_readonly("best", &dist::MultiNodeEarlyStoppingTrigger::best,
                                       "The best mean of the monitored value so far (over every rank).")
                .def_property_readonly("count", &dist::MultiNodeEarlyStoppingTrigger::count,
                                       "The number of checks in a row without improvement.");
        });
    class_with_base<dist::AllreducePersistent, training::Extension>(
        m, "AllreducePersistent", "Averages the model's persistent arrays (BatchNormalization statistics).",
        [](auto cls) {
            cls.def(py::init<std::shared_ptr<links::Link>, CommunicatorPtr>(), py::arg("model"), py::arg("comm"))
                .def("__call__", &dist::AllreducePersistent::operator(), py::arg("trainer"),
                     py::call_guard<py::gil_scoped_release>());
        });
    m.def(
        "allreduce_persistent",
        [](links::Link& model, dist::Communicator& comm) { dist::allreduce_persistent(model, comm); }, py::arg("model"),
        py::arg("comm"), py::call_guard<py::gil_scoped_release>(),
        "Replaces every floating-point persistent array of model by its mean over the ranks.");
}

}  // namespace

void bind_training_parts(py::module_& m) {
    bind_optimizer(m);
    bind_evaluator(m);
    bind_datasets(m);
    bind_checkpointer(m);
    bind_extensions(m);
}

}  // namespace rensa::python::distributed_bind
