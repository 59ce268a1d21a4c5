// rensa._core.links, activation links: PReLU, Maxout.
#include <memory>

#include "links/activation/maxout.h"
#include "links/activation/prelu.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

void bind_activation_links(py::module_& m) {
    link_class<L::PReLU, L::Link>(m, "PReLU",
                                  R"doc(Parametric ReLU: ``max(x, 0) + W * min(x, 0)`` with a learned slope ``W``.

Args:
    shape (tuple of ints): The shape of ``W``; it broadcasts against the input's axes from axis 1 (``()``: one
        slope shared by all elements).
    init: Initializer of ``W`` (0.25 by default).
)doc")
        .def(link_init<L::PReLU>([](py::handle shape, py::handle init) {
                 return std::make_shared<L::PReLU>(to_shape(shape, "PReLU"), to_initializer(init));
             }),
             py::arg("shape") = py::tuple(), py::arg("init") = 0.25);
    link_class<L::Maxout, L::Link>(m, "Maxout", R"doc(Fully-connected maxout layer.

A Linear of ``out_size * pool_size`` outputs followed by the maximum over each group of ``pool_size``
(``functions.maxout``).

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output size.
    pool_size (int): Number of units per maximum.
    initialW: Initializer of the Linear's weight.
    initial_bias: Initializer of its bias (0 by default).
)doc")
        .def(link_init<L::Maxout>([](py::handle in_size, int64_t out_size, int64_t pool_size, py::handle initialW,
                                     py::handle initial_bias) {
                 return std::make_shared<L::Maxout>(optional_int(in_size), out_size, pool_size,
                                                    to_initializer(initialW), to_initializer(initial_bias));
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("pool_size"), py::arg("initialW") = py::none(),
             py::arg("initial_bias") = 0);
}

}  // namespace rensa::python::links_detail
