#pragma once
// Bridges between Python data (examples, datasets, iterators, converters) and rensa::training's
// C++ types, for the training and distributed bind files. Defined in python/src/training/ (converter.cc, datasets.cc,
// iterators.cc). Every function here needs the GIL held by the caller; the objects they return take the GIL themselves
// when C++ calls back into Python (from any thread), so they may be used with the GIL released.
#include <optional>

#include "python/src/bind.h"
#include "training/converter.h"
#include "training/dataset.h"
#include "training/iterator.h"

namespace rensa::python {

// One example in Chainer's Python form: a tuple of numpy arrays (a dict {key: array} for a
// dict example). A 0-d value (a label) becomes a numpy scalar, as indexing a 1-d numpy array
// gives in Chainer's TupleDataset. A 1-value tuple example becomes the bare array (what
// Chainer's single-array datasets, get_mnist(withlabel=False) and lists of arrays give; only
// TupleDataset's own indexing keeps Chainer's 1-tuples).
// CPU arrays are numpy views of the example's memory (no copy).
py::object example_to_python(const training::Example& example);
// A batch (list of examples) as a Python list of example_to_python.
py::list batch_to_python(const std::vector<training::Example>& batch);
// A Python example -> Example: a tuple (or list of arrays inside a tuple) -> values; a dict ->
// keys and values (insertion order); a Variable -> its array; anything else to_array takes
// (numpy array, scalar, ndarray) -> a 1-value example. Numpy arrays are wrapped without a copy.
training::Example example_from_python(py::handle obj);
// A converted batch in Python (an array, a tuple/list of arrays, a dict, Variables) -> Example.
// Same as example_from_python; named apart for clarity at the call sites of converters.
inline training::Example arrays_from_python(py::handle obj) { return example_from_python(obj); }

// A C++ dataset (rensa.datasets.*, get_mnist) as is (fast path: no Python per example); a numpy
// array or ndarray as a zero-copy TupleDataset of it; any other Python sequence (list of tuples,
// DatasetMixin subclass, an object with __len__ and __getitem__) through an adapter that holds
// a strong reference to it and takes the GIL in size()/get_example()/get_examples().
// TypeError naming the Python type otherwise.
training::DatasetPtr dataset_from_python(py::handle obj);
// The Python object for a dataset: the original Python object for an adapter made by
// dataset_from_python, else the bound C++ dataset.
py::object dataset_to_python(const training::DatasetPtr& dataset);

// rensa.dataset.Iterator instances (C++ iterators such as SerialIterator, and Python
// subclasses of rensa.dataset.Iterator through their trampoline, kept alive by the returned
// pointer) as is. TypeError naming the Python type otherwise.
training::IteratorPtr iterator_from_python(py::handle obj);
// The Python object of an iterator (the same object for Python subclasses).
py::object iterator_to_python(const training::IteratorPtr& iterator);

// The converter argument of updaters and evaluators (Chainer's `converter=`): None or rensa's
// own concat_examples -> C++ concat_examples (no Python per batch); any other Python callable
// `converter(batch, device)` -> a Converter that takes the GIL, hands it the batch as a list of
// Python examples and the device (a rensa Device, or None), and converts what it returns with
// arrays_from_python.
training::Converter converter_from_python(py::handle obj);

}  // namespace rensa::python
