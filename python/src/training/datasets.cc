// rensa.datasets: the C++ dataset classes, split functions and loaders, and the adapter that
// lets C++ read Python datasets (data.h).
#include <Python.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "python/src/training/data_detail.h"
#include "training/datasets/datasets.h"

namespace rensa::python {
namespace data_detail {
namespace {

namespace ds = training::datasets;
using training::Dataset;
using training::DatasetPtr;
using training::Example;

// A Python dataset (list, DatasetMixin, any object with __len__ and __getitem__) seen by C++.
// It takes the GIL itself, so iterators may call it from their threads.
class PyDataset final : public Dataset {
public:
    explicit PyDataset(py::object obj) : obj_(std::move(obj)) {}
    int64_t size() const override {
        py::gil_scoped_acquire gil;
        return static_cast<int64_t>(py::len(obj_.get()));
    }
    Example get_example(int64_t i) const override {
        py::gil_scoped_acquire gil;
        return fetch(i, static_cast<int64_t>(py::len(obj_.get())));
    }
    std::vector<Example> get_examples(const std::vector<int64_t>& indices) const override {
        py::gil_scoped_acquire gil;  // once per batch, not once per example
        const auto n = static_cast<int64_t>(py::len(obj_.get()));
        std::vector<Example> out;
        out.reserve(indices.size());
        for (int64_t i : indices) out.push_back(fetch(i, n));
        return out;
    }
    const py::object& object() const { return obj_.get(); }

private:
    Example fetch(int64_t i, int64_t n) const {
        RENSA_CHECK(i >= -n && i < n, IndexError, "dataset: index ", i, " is out of range for a dataset of size ", n);
        try {
            return example_from_python(obj_.get()[py::int_(i < 0 ? i + n : i)]);
        } catch (const py::error_already_set& e) {
            rethrow_as_cpp(e, "dataset");
        }
    }
    SharedObject obj_;
};

// Python index i into [0, n); IndexError (Python's) outside [-n, n).
int64_t normalize(int64_t i, int64_t n) {
    if (i < -n || i >= n) {
        throw py::index_error("dataset index " + std::to_string(i) + " is out of range for a dataset of size " +
                              std::to_string(n));
    }
    return i < 0 ? i + n : i;
}

// The indices a slice, an index list or an index array selects.
std::vector<int64_t> indices_of(py::handle index, int64_t n) {
    std::vector<int64_t> out;
    if (py::isinstance<py::slice>(index)) {
        size_t start = 0, stop = 0, step = 0, length = 0;
        if (!py::reinterpret_borrow<py::slice>(index).compute(static_cast<size_t>(n), &start, &stop, &step, &length)) {
            throw py::error_already_set();
        }
        for (size_t k = 0; k < length; ++k) {
            out.push_back(static_cast<int64_t>(start) + static_cast<int64_t>(k) * static_cast<py::ssize_t>(step));
        }
        return out;
    }
    for (py::handle i : py::reinterpret_borrow<py::iterable>(index)) out.push_back(normalize(i.cast<int64_t>(), n));
    return out;
}

// dataset[i] (an example), dataset[i:j] / dataset[[i, j]] (a list of examples, as Chainer).
py::object getitem(const Dataset& self, py::handle index, py::object (*to_py)(const Example&)) {
    const int64_t n = self.size();
    // numpy arrays have __index__ too (for size-1 arrays): index lists and arrays go first.
    if (!py::isinstance<py::array>(index) && PyIndex_Check(index.ptr()))
        return to_py(self.get_example(normalize(index.cast<int64_t>(), n)));
    const std::vector<Example> batch = self.get_examples(indices_of(index, n));
    py::list out(batch.size());
    for (size_t k = 0; k < batch.size(); ++k) out[k] = to_py(batch[k]);
    return out;
}

// TupleDataset keeps Chainer's tuples even for one array (iterators give the bare array).
py::object tuple_example(const Example& example) {
    py::tuple t(example.size());
    for (size_t i = 0; i < example.size(); ++i) t[i] = value_to_python(example.values[i]);
    return t;
}

std::optional<std::vector<int64_t>> optional_order(const py::object& order) {
    if (order.is_none()) return std::nullopt;
    return order.cast<std::vector<int64_t>>();
}

std::optional<uint64_t> optional_seed(const py::object& seed) {
    if (seed.is_none()) return std::nullopt;
    return seed.cast<uint64_t>();
}

py::tuple pair_to_python(const std::pair<DatasetPtr, DatasetPtr>& p) {
    return py::make_tuple(dataset_to_python(p.first), dataset_to_python(p.second));
}

Dtype dtype_or(const py::object& dtype, Dtype fallback) { return dtype.is_none() ? fallback : to_dtype(dtype); }

void bind_dataset_classes(py::module_& dataset, py::module_& m) {
    py::classh<Dataset>(dataset, "Dataset", "A dataset implemented in C++ (len, indexing, slicing).")
        .def("__len__", &Dataset::size)
        .def("__getitem__", [](const Dataset& d, py::handle i) { return getitem(d, i, &example_to_python); })
        .def(
            "get_example", [](const Dataset& d, int64_t i) { return example_to_python(d.get_example(i)); },
            py::arg("i"));

    py::classh<ds::TupleDataset, Dataset>(m, "TupleDataset", "Zips arrays of equal length (views, no copy).")
        .def(py::init([](const py::args& arrays) {
            std::vector<Array> values;
            for (py::handle a : arrays) values.push_back(value_from_python(a));
            return std::make_shared<ds::TupleDataset>(std::move(values));
        }))
        .def("__getitem__", [](const ds::TupleDataset& d, py::handle i) { return getitem(d, i, &tuple_example); })
        .def_property_readonly("_datasets", [](const ds::TupleDataset& d) {
            py::tuple t(d.arrays().size());
            for (size_t i = 0; i < d.arrays().size(); ++i) t[i] = to_numpy(d.arrays()[i]);
            return t;
        });

    py::classh<ds::DictDataset, Dataset>(m, "DictDataset", "Named arrays of equal length; examples are dicts.")
        .def(py::init([](const py::kwargs& arrays) {
            std::vector<std::pair<std::string, Array>> values;
            for (auto [key, a] : arrays) values.emplace_back(key.cast<std::string>(), value_from_python(a));
            return std::make_shared<ds::DictDataset>(std::move(values));
        }))
        .def_property_readonly("_datasets", [](const ds::DictDataset& d) {
            py::dict out;
            for (size_t i = 0; i < d.keys().size(); ++i) out[py::str(d.keys()[i])] = to_numpy(d.arrays()[i]);
            return out;
        });

    py::classh<ds::SubDataset, Dataset>(m, "SubDataset", "Examples [start, finish) of a dataset, optionally reordered.")
        .def(py::init([](py::handle base, int64_t start, int64_t finish, const py::object& order) {
                 return std::make_shared<ds::SubDataset>(dataset_from_python(base), start, finish,
                                                         optional_order(order));
             }),
             py::arg("dataset"), py::arg("start"), py::arg("finish"), py::arg("order") = py::none())
        .def_property_readonly("_dataset", [](const ds::SubDataset& d) { return dataset_to_python(d.dataset()); })
        .def_property_readonly("_start", &ds::SubDataset::start)
        .def_property_readonly("_finish", &ds::SubDataset::finish);

    py::classh<ds::ConcatenatedDataset, Dataset>(m, "ConcatenatedDataset", "Datasets one after another.")
        .def(py::init([](const py::args& datasets) {
            std::vector<DatasetPtr> parts;
            for (py::handle d : datasets) parts.push_back(dataset_from_python(d));
            return std::make_shared<ds::ConcatenatedDataset>(std::move(parts));
        }));

    py::classh<ds::TransformDataset, Dataset>(m, "TransformDataset", "Applies transform(example) when read.")
        .def(py::init([](py::handle base, const py::object& transform) {
                 SharedObject fn{transform};
                 ds::Transform t = [fn](const Example& example) {
                     py::gil_scoped_acquire gil;
                     try {
                         return example_from_python(fn.get()(example_to_python(example)));
                     } catch (const py::error_already_set& e) {
                         rethrow_as_cpp(e, "TransformDataset");
                     }
                 };
                 return std::make_shared<ds::TransformDataset>(dataset_from_python(base), std::move(t));
             }),
             py::arg("dataset"), py::arg("transform"))
        .def_property_readonly("_dataset",
                               [](const ds::TransformDataset& d) { return dataset_to_python(d.dataset()); });
}

void bind_split_functions(py::module_& m) {
    m.def(
        "split_dataset",
        [](py::handle d, int64_t split_at, const py::object& order) {
            return pair_to_python(ds::split_dataset(dataset_from_python(d), split_at, optional_order(order)));
        },
        py::arg("dataset"), py::arg("split_at"), py::arg("order") = py::none(),
        R"doc(Splits a dataset into two subsets (chainer.datasets.split_dataset): examples ``[0, split_at)`` and
``[split_at, len(dataset))``, through ``order`` when given. The subsets are views (no example is
copied).

Args:
    dataset: the dataset to split.
    split_at (int): where to split (ValueError outside ``[0, len(dataset)]``).
    order: a permutation of the indices to take the examples in (None: the dataset's order);
        ValueError when its length is not the dataset's.

Returns:
    a tuple of two SubDatasets.)doc");
    m.def(
        "split_dataset_random",
        [](py::handle d, int64_t first_size, const py::object& seed) {
            return pair_to_python(ds::split_dataset_random(dataset_from_python(d), first_size, optional_seed(seed)));
        },
        py::arg("dataset"), py::arg("first_size"), py::arg("seed") = py::none(),
        R"doc(Splits a dataset into two subsets through a random permutation
(chainer.datasets.split_dataset_random): ``first_size`` examples, then the rest.

The permutation comes from rensa's Philox generator: the same ``seed`` gives the same split, but
not the split numpy's RandomState would give Chainer; without a seed one is drawn from the global
generator (``rensa.seed`` fixes it).

Returns:
    a tuple of two SubDatasets.)doc");
    m.def(
        "get_cross_validation_datasets",
        [](py::handle d, int64_t n_fold, const py::object& order) {
            py::list out;
            for (const auto& p :
                 ds::get_cross_validation_datasets(dataset_from_python(d), n_fold, optional_order(order)))
                out.append(pair_to_python(p));
            return out;
        },
        py::arg("dataset"), py::arg("n_fold"), py::arg("order") = py::none(),
        R"doc(Makes ``n_fold`` ``(train, test)`` pairs for cross validation
(chainer.datasets.get_cross_validation_datasets).

The test parts partition the dataset (taken through ``order`` when given) into ``n_fold`` blocks;
as in Chainer, pair ``k`` tests block ``n_fold - 1 - k`` and trains on the rest. ValueError unless
``1 <= n_fold <= len(dataset)``.

Returns:
    a list of ``(train, test)`` tuples of SubDatasets.)doc");
    m.def(
        "get_cross_validation_datasets_random",
        [](py::handle d, int64_t n_fold, const py::object& seed) {
            py::list out;
            for (const auto& p :
                 ds::get_cross_validation_datasets_random(dataset_from_python(d), n_fold, optional_seed(seed)))
                out.append(pair_to_python(p));
            return out;
        },
        py::arg("dataset"), py::arg("n_fold"), py::arg("seed") = py::none(),
        R"doc(``get_cross_validation_datasets`` over a random permutation
(chainer.datasets.get_cross_validation_datasets_random); the permutation comes from rensa's Philox
generator (the same ``seed`` gives the same folds; without one a seed is drawn from the global
generator).

Returns:
    a list of ``n_fold`` ``(train, test)`` tuples of SubDatasets.)doc");
}

void bind_loaders(py::module_& m) {
    // rgb_format is handled by the Python wrapper (rensa.datasets.get_mnist).
    auto mnist = [](auto loader) {
        return
            [loader](bool withlabel, int ndim, double scale, const py::object& dtype, const py::object& label_dtype) {
                ds::MnistOptions o;
                o.withlabel = withlabel;
                o.ndim = ndim;
                o.scale = scale;
                o.dtype = dtype_or(dtype, Dtype::kFloat32);
                o.label_dtype = dtype_or(label_dtype, Dtype::kInt32);
                std::pair<DatasetPtr, DatasetPtr> sets;
                {
                    py::gil_scoped_release release;
                    sets = loader(o);
                }
                return pair_to_python(sets);
            };
    };
    auto cifar = [](auto loader) {
        return [loader](bool withlabel, int ndim, double scale, const py::object& dtype) {
            ds::CifarOptions o;
            o.withlabel = withlabel;
            o.ndim = ndim;
            o.scale = scale;
            o.dtype = dtype_or(dtype, Dtype::kFloat32);
            std::pair<DatasetPtr, DatasetPtr> sets;
            {
                py::gil_scoped_release release;
                sets = loader(o);
            }
            return pair_to_python(sets);
        };
    };
    const auto mnist_args = [](py::module_& mod, const char* name, auto fn) {
        mod.def(name, fn, py::arg("withlabel") = true, py::arg("ndim") = 1, py::arg("scale") = 1.0,
                py::arg("dtype") = py::none(), py::arg("label_dtype") = py::none());
    };
    mnist_args(m, "_get_mnist", mnist([](const ds::MnistOptions& o) { return ds::get_mnist(o); }));
    mnist_args(m, "_get_fashion_mnist", mnist([](const ds::MnistOptions& o) { return ds::get_fashion_mnist(o); }));
    const auto cifar_args = [](py::module_& mod, const char* name, auto fn, const char* doc) {
        mod.def(name, fn, py::arg("withlabel") = true, py::arg("ndim") = 3, py::arg("scale") = 1.0,
                py::arg("dtype") = py::none(), doc);
    };
    cifar_args(m, "get_cifar10", cifar([](const ds::CifarOptions& o) { return ds::get_cifar10(o); }),
               R"doc(The CIFAR-10 dataset (chainer.datasets.get_cifar10): 50,000 training and 10,000 test images of
10 classes.

Read from the binary version of the data set in ``$RENSA_DATASET_ROOT/cifar-10-batches-bin``
(``data_batch_1.bin`` ... ``data_batch_5.bin``, ``test_batch.bin``). Unlike Chainer nothing is
downloaded: a missing file raises IOError saying what to put where.

Args:
    withlabel (bool): examples are ``(image, label)`` pairs with int32 labels; False: examples without labels.
    ndim (int): 3 for ``(3, 32, 32)`` images, 1 for flat ``(3072,)`` ones (ValueError otherwise).
    scale (float): pixel values are scaled to ``[0, scale]``.
    dtype: the float dtype of the images (float32 by default).

Returns:
    a ``(train, test)`` tuple of datasets.)doc");
    cifar_args(m, "get_cifar100", cifar([](const ds::CifarOptions& o) { return ds::get_cifar100(o); }),
               R"doc(The CIFAR-100 dataset (chainer.datasets.get_cifar100): 50,000 training and 10,000 test images of
100 classes (the fine labels).

Read from the binary version of the data set in ``$RENSA_DATASET_ROOT/cifar-100-binary``
(``train.bin``, ``test.bin``). Unlike Chainer nothing is downloaded: a missing file raises IOError
saying what to put where.

Args:
    withlabel (bool): examples are ``(image, label)`` pairs with int32 labels; False: examples without labels.
    ndim (int): 3 for ``(3, 32, 32)`` images, 1 for flat ``(3072,)`` ones (ValueError otherwise).
    scale (float): pixel values are scaled to ``[0, scale]``.
    dtype: the float dtype of the images (float32 by default).

Returns:
    a ``(train, test)`` tuple of datasets.)doc");
}

}  // namespace

void bind_datasets(py::module_& dataset, py::module_& datasets) {
    bind_dataset_classes(dataset, datasets);
    bind_split_functions(datasets);
    bind_loaders(datasets);
}

}  // namespace data_detail

training::DatasetPtr dataset_from_python(py::handle obj) {
    if (py::isinstance<training::Dataset>(obj)) return obj.cast<training::DatasetPtr>();
    if (py::isinstance<py::array>(obj) || py::isinstance<Array>(obj)) {
        // A bare array is a dataset of its rows: a zero-copy C++ TupleDataset (fast path).
        return std::make_shared<training::datasets::TupleDataset>(std::vector<Array>{to_array(obj)});
    }
    if (!py::hasattr(obj, "__len__") || !py::hasattr(obj, "__getitem__")) {
        throw py::type_error("dataset: expected a dataset (a sequence with __len__ and __getitem__), got " +
                             py::str(py::type::of(obj)).cast<std::string>());
    }
    return std::make_shared<data_detail::PyDataset>(py::reinterpret_borrow<py::object>(obj));
}

py::object dataset_to_python(const training::DatasetPtr& dataset) {
    if (!dataset) return py::none();
    if (const auto* adapter = dynamic_cast<const data_detail::PyDataset*>(dataset.get())) return adapter->object();
    return py::cast(dataset);
}

}  // namespace rensa::python
