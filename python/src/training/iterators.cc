// rensa.dataset.Iterator (with the trampoline for Python subclasses) and rensa.iterators.
#include <Python.h>

#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "python/src/serializers/serializers.h"
#include "python/src/training/data_detail.h"
#include "serializers/serializer.h"
#include "training/iterators/iterators.h"

namespace rensa::python {
namespace data_detail {
namespace {

namespace it = training::iterators;
using training::Example;
using training::Iterator;
using training::OrderSampler;

// Python subclasses of rensa.dataset.Iterator, written as in Chainer: __next__ returns a list
// of examples and raises StopIteration at the end; epoch, epoch_detail, is_new_epoch, ... are
// plain attributes or properties (so they are read with getattr, not as overrides).
class PyIterator : public Iterator, public py::trampoline_self_life_support {
public:
    std::optional<std::vector<Example>> next() override {
        py::gil_scoped_acquire gil;
        py::function fn = py::get_override(static_cast<const Iterator*>(this), "__next__");
        if (!fn) RENSA_THROW(NotImplementedError, "Iterator: the Python subclass does not define __next__");
        py::object batch;
        try {
            batch = fn();
        } catch (py::error_already_set& e) {
            if (e.matches(PyExc_StopIteration)) return std::nullopt;
            throw;
        }
        std::vector<Example> out;
        for (py::handle example : batch) out.push_back(example_from_python(example));
        return out;
    }
    int64_t batch_size() const override { return attr_or<int64_t>("batch_size", 0); }
    bool repeat() const override { return attr_or<bool>("repeat", true); }
    int64_t epoch() const override { return attr_or<int64_t>("epoch", 0); }
    double epoch_detail() const override { return attr_or<double>("epoch_detail", static_cast<double>(epoch())); }
    std::optional<double> previous_epoch_detail() const override {
        return attr_or<std::optional<double>>("previous_epoch_detail", std::nullopt);
    }
    bool is_new_epoch() const override { return attr_or<bool>("is_new_epoch", false); }
    void reset() override {
        py::gil_scoped_acquire gil;
        py::function fn = py::get_override(static_cast<const Iterator*>(this), "reset");
        if (!fn) RENSA_THROW(NotImplementedError, "Iterator: the Python subclass does not define reset()");
        fn();
    }
    void finalize() override { PYBIND11_OVERRIDE(void, Iterator, finalize, ); }
    void serialize(const serializers::Serializer& serializer) override {
        py::gil_scoped_acquire gil;
        if (py::function fn = py::get_override(static_cast<const Iterator*>(this), "serialize")) {
            serialize_python(fn, serializer);  // See Note [Python loads in two passes]
        }
    }

private:
    // getattr(self, name) as T, or `fallback` when self has no such attribute.
    template <class T>
    T attr_or(const char* name, T fallback) const {
        py::gil_scoped_acquire gil;
        const py::handle self = py::detail::get_object_handle(static_cast<const Iterator*>(this),
                                                              py::detail::get_type_info(typeid(Iterator)));
        if (!self || !py::hasattr(self, name)) return fallback;
        return self.attr(name).cast<T>();
    }
};

// A Python order sampler: any callable order_sampler(current_order, current_position), as
// Chainer allows, with an optional serialize(serializer).
class PyOrderSampler final : public OrderSampler {
public:
    explicit PyOrderSampler(py::object fn) : fn_(std::move(fn)) {}
    std::vector<int64_t> operator()(const std::vector<int64_t>& current_order, int64_t current_position) override {
        py::gil_scoped_acquire gil;
        py::array_t<int64_t> order(static_cast<py::ssize_t>(current_order.size()), current_order.data());
        return fn_.get()(order, current_position).cast<std::vector<int64_t>>();
    }
    void serialize(const serializers::Serializer& serializer) override {
        py::gil_scoped_acquire gil;
        if (py::hasattr(fn_.get(), "serialize")) serialize_python(fn_.get().attr("serialize"), serializer);
    }

private:
    SharedObject fn_;
};

std::shared_ptr<OrderSampler> order_sampler_from_python(const py::object& obj) {
    if (obj.is_none()) return nullptr;
    if (py::isinstance<OrderSampler>(obj)) return obj.cast<std::shared_ptr<OrderSampler>>();
    if (!PyCallable_Check(obj.ptr())) {
        throw py::type_error("order_sampler: expected a callable order_sampler(current_order, current_position), got " +
                             py::str(py::type::of(obj)).cast<std::string>());
    }
    return std::make_shared<PyOrderSampler>(obj);
}

// Chainer: shuffle=None means True unless an order sampler is given; both is an error.
bool resolve_shuffle(const py::object& shuffle, const py::object& order_sampler) {
    RENSA_CHECK(shuffle.is_none() || order_sampler.is_none(), ValueError,
                "iterator: shuffle is not None and a custom order_sampler is set; give only one of them");
    return shuffle.is_none() ? true : shuffle.cast<bool>();
}

// The base's methods as called on a Python subclass that did not override them (or through
// super()): Chainer's defaults, never the C++ virtual (which would call back into Python).
bool is_python_subclass(const Iterator& self) { return dynamic_cast<const PyIterator*>(&self) != nullptr; }

py::object next_batch(Iterator& self) {
    if (is_python_subclass(self)) RENSA_THROW(NotImplementedError, "Iterator.__next__ is not implemented");
    std::optional<std::vector<Example>> batch;
    {
        py::gil_scoped_release release;  // the dataset (or its Python adapter) may run on threads
        batch = self.next();
    }
    if (!batch) throw py::stop_iteration();
    return batch_to_python(*batch);
}

struct IteratorHolder {
    training::IteratorPtr iterator;
    py::list run(int n) {
        py::list out;
        for (int k = 0; k < n; ++k) {
            std::optional<std::vector<Example>> batch;
            {
                py::gil_scoped_release release;
                batch = iterator->next();
            }
            py::object b = batch ? py::object(batch_to_python(*batch)) : py::none();
            out.append(py::make_tuple(b, iterator->epoch(), iterator->epoch_detail(), iterator->is_new_epoch()));
        }
        return out;
    }
};

void bind_iterator_base(py::module_& dataset) {
    py::classh<Iterator, PyIterator>(dataset, "Iterator",
                                     "Base of dataset iterators (Chainer's chainer.dataset.Iterator).")
        .def(py::init<>())
        .def("__iter__", [](py::object self) { return self; })
        .def("__next__", &next_batch)
        .def(
            "next", [](py::object self) { return self.attr("__next__")(); },
            "The next batch, a list of examples (as ``next(iterator)``); StopIteration when an iterator that does "
            "not repeat is exhausted.")
        .def(
            "reset",
            [](Iterator& self) {
                if (is_python_subclass(self)) RENSA_THROW(NotImplementedError, "Iterator.reset is not implemented");
                py::gil_scoped_release release;
                self.reset();
            },
            "Rewinds the iterator to the start of epoch 0 (a Python subclass must override it).")
        .def(
            "finalize",
            [](Iterator& self) {
                if (is_python_subclass(self)) return;
                py::gil_scoped_release release;
                self.finalize();
            },
            "Releases the resources of the iterator (worker threads or processes); ``with iterator:`` calls it on "
            "exit.")
        .def(
            "serialize",
            [](Iterator& self, const serializers::Serializer& serializer) {
                if (is_python_subclass(self)) return;
                py::gil_scoped_release release;
                self.serialize(serializer);
            },
            py::arg("serializer"),
            "Saves or loads the iterator's state (position, epoch, order) through ``serializer``; nothing for a "
            "Python subclass that does not override it.")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object self, const py::args&) { self.attr("finalize")(); });
    // For tests of the C++ side: C++ alone holds the iterator and calls its virtuals, as the
    // Trainer does; run(n) gives [(batch, epoch, epoch_detail, is_new_epoch)] (None at the end).
    py::classh<IteratorHolder>(dataset, "_IteratorHolder")
        .def(py::init([](py::handle iterator) { return IteratorHolder{iterator_from_python(iterator)}; }))
        .def("run", &IteratorHolder::run)
        .def("reset", [](IteratorHolder& h) { h.iterator->reset(); })
        .def("serialize", [](IteratorHolder& h, const serializers::Serializer& s) { h.iterator->serialize(s); })
        .def("get", [](const IteratorHolder& h) { return iterator_to_python(h.iterator); });
    // Chainer's subclasses need not call Iterator.__init__; rensa.dataset.iterator adds it
    // when they do not (see _is_constructed there).
    dataset.def("_is_constructed", [](py::handle self) {
        auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
        return inst->get_value_and_holder().holder_constructed();
    });
}

template <class Cls>
void def_iterator_state(Cls& cls) {
    using it::SerialIterator;
    cls.def_property_readonly(
           "dataset", [](const SerialIterator& s) { return dataset_to_python(s.dataset()); },
           "The dataset the examples come from.")
        .def_property_readonly("batch_size", &SerialIterator::batch_size, "The number of examples per batch.")
        .def_property_readonly("repeat", &SerialIterator::repeat,
                               "Whether the iterator goes on over the epochs (else it stops after one).")
        .def_property_readonly("epoch", &SerialIterator::epoch, "The number of epochs completed.")
        .def_property_readonly("epoch_detail", &SerialIterator::epoch_detail,
                               "The epoch as a float: ``epoch + current_position / len(dataset)``.")
        .def_property_readonly("previous_epoch_detail", &SerialIterator::previous_epoch_detail,
                               "``epoch_detail`` before the last batch, or None before the first.")
        .def_property_readonly("is_new_epoch", &SerialIterator::is_new_epoch,
                               "Whether the last batch finished an epoch.")
        .def_property_readonly("current_position", &SerialIterator::current_position,
                               "The position of the next example in the current epoch's order.")
        .def_property_readonly(
            "order_sampler",
            [](const SerialIterator& s) -> py::object {
                const auto& sampler = s.order_sampler();
                if (!sampler) return py::none();
                return py::cast(sampler);
            },
            "The order sampler drawing each epoch's order, or None when iterating in dataset order.")
        .def_property_readonly("_order", [](const SerialIterator& s) -> py::object {
            if (!s.order()) return py::none();
            return py::array_t<int64_t>(static_cast<py::ssize_t>(s.order()->size()), s.order()->data());
        });
}

// MultithreadIterator's destructor waits for its workers, which may wait for the GIL.
void delete_without_gil(it::MultithreadIterator* p) {
    if (Py_IsInitialized() && PyGILState_Check()) {
        py::gil_scoped_release release;
        delete p;
        return;
    }
    delete p;
}

void bind_iterator_classes(py::module_& m) {
    py::classh<OrderSampler>(m, "_OrderSampler", "Base of the C++ order samplers.")
        .def(
            "__call__",
            [](OrderSampler& s, const std::vector<int64_t>& current_order, int64_t current_position) {
                return s(current_order, current_position);
            },
            py::arg("current_order"), py::arg("current_position"),
            "The order of the next epoch (an array of indices), given the current order and position.")
        .def("serialize", &OrderSampler::serialize, py::arg("serializer"),
             "Saves or loads the sampler's state through ``serializer``.");
    py::classh<it::ShuffleOrderSampler, OrderSampler>(m, "ShuffleOrderSampler",
                                                      "A fresh random permutation every epoch (Philox).")
        .def(py::init([](const py::object& random_state, const py::object& seed) {
                 std::optional<uint64_t> s;
                 if (!seed.is_none()) s = seed.cast<uint64_t>();
                 // numpy's RandomState: seed the counter-based generator from it.
                 if (!s && !random_state.is_none()) {
                     s = random_state.attr("randint")(0, py::int_(int64_t{1} << 62)).cast<uint64_t>();
                 }
                 return std::make_shared<it::ShuffleOrderSampler>(s);
             }),
             py::arg("random_state") = py::none(), py::arg("seed") = py::none())
        .def_property_readonly("seed", &it::ShuffleOrderSampler::seed,
                               "The seed of its counter-based (Philox) generator: ``seed`` if given, else drawn from "
                               "``random_state`` or from rensa's global generator.")
        .def_property_readonly(
            "counter", &it::ShuffleOrderSampler::counter,
            "The Philox counter, advanced by the random blocks each permutation used (saved by ``serialize``, so a "
            "resumed iterator draws the orders an uninterrupted one would have).");

    py::classh<it::SerialIterator, Iterator> serial(
        m, "SerialIterator",
        R"doc(Batches of a dataset in order, or shuffled each epoch (chainer.iterators.SerialIterator).

``next(iterator)`` gives a list of examples. With ``repeat`` a batch may span two epochs;
without it the last batch is short and the next call raises StopIteration. Over a dataset of
arrays or numbers no Python runs per example; over a Python dataset of other objects (strings,
nested lists) a Python iterator with the same batches is returned.

Args:
    dataset: the dataset (anything with ``__len__`` and ``__getitem__``).
    batch_size (int): the number of examples per batch (ValueError when below 1).
    repeat (bool): go on over the epochs.
    shuffle (bool): draw a new order every epoch (None: True unless ``order_sampler`` is given;
        ValueError when both are given).
    order_sampler: ``order_sampler(current_order, current_position)`` giving each epoch's order.)doc");
    serial.def(py::init([](py::handle dataset, int64_t batch_size, bool repeat, const py::object& shuffle,
                           const py::object& order_sampler) {
                   it::SerialIteratorOptions o;
                   o.repeat = repeat;
                   o.shuffle = resolve_shuffle(shuffle, order_sampler);
                   o.order_sampler = order_sampler_from_python(order_sampler);
                   return std::make_shared<it::SerialIterator>(dataset_from_python(dataset), batch_size, o);
               }),
               py::arg("dataset"), py::arg("batch_size"), py::arg("repeat") = true, py::arg("shuffle") = py::none(),
               py::arg("order_sampler") = py::none());
    def_iterator_state(serial);

    py::classh<it::MultithreadIterator, it::SerialIterator> multi(
        m, "MultithreadIterator",
        "SerialIterator's batches, fetched one batch ahead on ``n_threads`` threads "
        "(chainer.iterators.MultithreadIterator); the same seed gives the same batches as a SerialIterator, and "
        "``serialize`` saves what a SerialIterator would.");
    multi
        .def(py::init([](py::handle dataset, int64_t batch_size, bool repeat, const py::object& shuffle, int n_threads,
                         const py::object& order_sampler) {
                 it::MultithreadIteratorOptions o;
                 o.repeat = repeat;
                 o.shuffle = resolve_shuffle(shuffle, order_sampler);
                 o.order_sampler = order_sampler_from_python(order_sampler);
                 o.n_threads = n_threads;
                 return std::shared_ptr<it::MultithreadIterator>(
                     new it::MultithreadIterator(dataset_from_python(dataset), batch_size, o), &delete_without_gil);
             }),
             py::arg("dataset"), py::arg("batch_size"), py::arg("repeat") = true, py::arg("shuffle") = py::none(),
             py::arg("n_threads") = 1, py::arg("order_sampler") = py::none())
        .def_property_readonly("n_threads", &it::MultithreadIterator::n_threads,
                               "The number of threads fetching examples.");
}

}  // namespace

void bind_iterators(py::module_& dataset, py::module_& iterators) {
    bind_iterator_base(dataset);
    bind_iterator_classes(iterators);
}

}  // namespace data_detail

training::IteratorPtr iterator_from_python(py::handle obj) {
    if (!py::isinstance<training::Iterator>(obj)) {
        throw py::type_error("iterator: expected a rensa.dataset.Iterator (SerialIterator, a subclass), got " +
                             py::str(py::type::of(obj)).cast<std::string>());
    }
    return obj.cast<training::IteratorPtr>();
}

py::object iterator_to_python(const training::IteratorPtr& iterator) {
    if (!iterator) return py::none();
    return py::cast(iterator);
}

}  // namespace rensa::python
