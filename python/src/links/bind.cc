// rensa._core.links and rensa._core.initializers; the Link classes live in rensa._core
// itself (rensa.link derives its Python Link, Chain, ... from them).
#include "python/src/links/function_defaults.h"
#include "python/src/links/links.h"

namespace rensa::python {

void bind_links(py::module_& m) {
    links_detail::functions_module() = m.attr("functions");  // bound before links (module.cc)
    py::module_ init = m.def_submodule("initializers", "Chainer's initializers");
    links_detail::bind_initializers(init);
    links_detail::bind_sampling_filters(init);
    links_detail::bind_link_classes(m);
    links_detail::bind_chains(m);
    py::module_ links = m.def_submodule("links", "Chainer's links");
    links_detail::bind_connection_links(links);
    links_detail::bind_normalization_links(links);
    links_detail::bind_activation_links(links);
    links_detail::bind_recurrent_links(links);
    links_detail::bind_n_step_links(links);
    links_detail::bind_model_links(links);
    links_detail::bind_spatial_links(links);
    links_detail::bind_vision_links(links);
    links_detail::bind_normloss_links(links);
    links_detail::bind_more_links(links);
    links_detail::bind_act_links(links);
}

}  // namespace rensa::python
