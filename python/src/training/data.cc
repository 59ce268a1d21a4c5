// rensa._core.dataset (Iterator, Dataset, concat_examples, to_device), rensa._core.datasets and
// rensa._core.iterators; the Python packages rensa.dataset, rensa.datasets and rensa.iterators
// re-export them under Chainer's names.
#include "python/src/training/data_detail.h"

namespace rensa::python {

void bind_data(py::module_& m) {
    py::module_ dataset = m.def_submodule("dataset", "chainer.dataset: Iterator, concat_examples, to_device");
    py::module_ datasets = m.def_submodule("datasets", "chainer.datasets: dataset classes and loaders");
    py::module_ iterators = m.def_submodule("iterators", "chainer.iterators: SerialIterator, MultithreadIterator");
    data_detail::bind_convert(dataset);
    data_detail::bind_datasets(dataset, datasets);
    data_detail::bind_iterators(dataset, iterators);
}

}  // namespace rensa::python
