// rensa._core.links, activation links: PReLU, Maxout.
#include <memory>

#include "links/activation/maxout.h"
#include "links/activation/prelu.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

void bind_activation_links(py::module_& m) {
    link_class<L::PReLU, L::Link>(m, "PReLU")
        .def(link_init<L::PReLU>([](py::handle shape, py::handle init) {
                 return std::make_shared<L::PReLU>(to_shape(shape, "PReLU"), to_initializer(init));
             }),
             py::arg("shape") = py::tuple(), py::arg("init") = 0.25);
    link_class<L::Maxout, L::Link>(m, "Maxout")
        .def(link_init<L::Maxout>([](py::handle in_size, int64_t out_size, int64_t pool_size, py::handle initialW,
                                     py::handle initial_bias) {
                 return std::make_shared<L::Maxout>(optional_int(in_size), out_size, pool_size,
                                                    to_initializer(initialW), to_initializer(initial_bias));
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("pool_size"), py::arg("initialW") = py::none(),
             py::arg("initial_bias") = 0);
}

}  // namespace rensa::python::links_detail
