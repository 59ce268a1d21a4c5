// Chain, ChainList and Sequential in rensa._core (rensa.link derives the Python classes
// with init_scope from these).
#include <pybind11/functional.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "links/chain.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

void bind_chains(py::module_& m) {
    using Rule = py::return_value_policy;
    py::classh<L::Chain, L::Link, PyLink<L::Chain>>(m, "Chain", py::dynamic_attr())
        .def(py::init<>())
        .def(py::init([](const L::Chain& source) { return std::make_shared<PyLink<L::Chain>>(source); }),
             py::arg("_source"))
        .def(
            "add_link",
            [](L::Chain& self, const std::string& name, std::shared_ptr<L::Link> link) {
                return self.add_link(name, std::move(link));
            },
            py::arg("name"), py::arg("link"))
        .def(
            "__getitem__", [](L::Chain& self, const std::string& name) -> L::Link& { return self[name]; },
            py::arg("name"), Rule::reference_internal);

    py::classh<L::ChainList, L::Link, PyLink<L::ChainList>>(m, "ChainList", py::dynamic_attr())
        .def(py::init<>())
        .def(py::init([](const L::ChainList& source) { return std::make_shared<PyLink<L::ChainList>>(source); }),
             py::arg("_source"))
        .def("add_link", &L::ChainList::add_link, py::arg("link"))
        .def("append", &L::ChainList::append, py::arg("link"))
        .def(
            "__getitem__", [](L::ChainList& self, int64_t index) -> L::Link& { return self[index]; }, py::arg("index"),
            Rule::reference_internal)
        .def("_set_links", &L::ChainList::set_links, py::arg("links"))
        .def("__len__", &L::ChainList::size)
        .def("__iter__", [](py::object self) {
            return py::iter(py::cast(self.cast<L::ChainList&>().children(), Rule::reference_internal, self));
        });

    py::classh<L::Sequential, L::ChainList, PyLink<L::Sequential>>(m, "Sequential", py::dynamic_attr())
        .def(py::init<>())
        .def(py::init([](const L::Sequential& source) { return std::make_shared<PyLink<L::Sequential>>(source); }),
             py::arg("_source"))
        .def(
            "_append_link", [](L::Sequential& self, std::shared_ptr<L::Link> link) { self.append(std::move(link)); },
            py::arg("link"))
        // A Python callable of one Variable (F.relu, a lambda); called with the GIL taken.
        .def(
            "_append_function",
            [](L::Sequential& self, std::function<Variable(const Variable&)> f) { self.append(std::move(f)); },
            py::arg("function"))
        // Links and Python callables of one Variable, as rensa.link.Sequential holds them.
        .def(
            "_set_layers",
            [](L::Sequential& self, const py::list& layers) {
                std::vector<L::Layer> out;
                out.reserve(layers.size());
                for (py::handle layer : layers) {
                    if (py::isinstance<L::Link>(layer)) {
                        out.emplace_back(layer.cast<std::shared_ptr<L::Link>>());
                    } else {
                        out.emplace_back(layer.cast<std::function<Variable(const Variable&)>>());
                    }
                }
                self.set_layers(std::move(out));
            },
            py::arg("layers"))
        .def_property_readonly("_num_layers", &L::Sequential::num_layers);
}

}  // namespace rensa::python::links_detail
