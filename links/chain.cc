#include "links/chain.h"

#include <string>
#include <utility>

#include "core/error.h"

namespace rensa::links {

ChainList::ChainList(std::vector<std::shared_ptr<Link>> links) {
    for (auto& link : links) add_link(std::move(link));
}

void ChainList::add_link(std::shared_ptr<Link> link) { add_child(std::to_string(size()), std::move(link)); }

Link& ChainList::operator[](int64_t index) {
    const std::vector<Link*> links = children();
    const auto n = static_cast<int64_t>(links.size());
    RENSA_CHECK(index >= -n && index < n, IndexError, "ChainList: index ", index, " is out of range for ", n, " links");
    return *links[static_cast<size_t>(index < 0 ? index + n : index)];
}

void ChainList::set_links(std::vector<std::shared_ptr<Link>> links) {
    for (size_t i = 0; i < links.size(); ++i) {
        RENSA_CHECK(links[i] != nullptr, ValueError, "ChainList: link ", i, " of the new children is null");
        RENSA_CHECK(links[i].get() != this, ValueError, "ChainList: cannot hold itself as child ", i);
    }
    clear_owned_children();
    for (auto& link : links) add_link(std::move(link));
}

int64_t ChainList::size() const { return static_cast<int64_t>(const_cast<ChainList&>(*this).children().size()); }

Sequential::Sequential(std::vector<Layer> layers) {
    for (auto& layer : layers) append(std::move(layer));
}

void Sequential::append(Layer layer) {
    if (auto* link = std::get_if<std::shared_ptr<Link>>(&layer)) {
        ChainList::add_link(std::move(*link));
        layers_.emplace_back(size() - 1);
    } else {
        auto& fn = std::get<std::function<Variable(const Variable&)>>(layer);
        RENSA_CHECK(static_cast<bool>(fn), ValueError, "Sequential.append: the function is empty");
        layers_.emplace_back(std::move(fn));
    }
}

void Sequential::set_layers(std::vector<Layer> layers) {
    for (size_t i = 0; i < layers.size(); ++i) {
        if (const auto* link = std::get_if<std::shared_ptr<Link>>(&layers[i])) {
            RENSA_CHECK(*link != nullptr, ValueError, "Sequential: layer ", i, " of the new layers is a null link");
            RENSA_CHECK(link->get() != this, ValueError, "Sequential: cannot hold itself as layer ", i);
        } else {
            RENSA_CHECK(static_cast<bool>(std::get<std::function<Variable(const Variable&)>>(layers[i])), ValueError,
                        "Sequential: layer ", i, " of the new layers is an empty function");
        }
    }
    clear_owned_children();
    layers_.clear();
    for (auto& layer : layers) append(std::move(layer));
}

Variable Sequential::forward(const Variable& x) {
    RENSA_CHECK(!layers_.empty(), ValueError, "Sequential: there is no layer to call");
    Variable h = x;
    for (const auto& layer : layers_) {
        if (const auto* index = std::get_if<int64_t>(&layer)) {
            h = (*this)[*index].forward(h);
        } else {
            h = std::get<std::function<Variable(const Variable&)>>(layer)(h);
        }
    }
    return h;
}

}  // namespace rensa::links
