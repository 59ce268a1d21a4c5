#pragma once
// Containers of links: Chain (named children), ChainList (numbered children "0", "1",
// ...) and Sequential (a ChainList that also holds plain functions and calls its layers
// in order). See links/link.h for registration and copies.

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "links/link.h"

namespace rensa::links {

class Chain : public Cloneable<Chain> {
public:
    Chain() = default;
    // Registers `link` as a child named `name` (Chainer's Chain.add_link); returns it.
    template <class C>
    std::shared_ptr<C> add_link(const std::string& name, std::shared_ptr<C> link) {
        add_child(name, link);
        return link;
    }
    // The child named `name` (Chainer's chain[name]); KeyError when missing.
    Link& operator[](const std::string& name) { return child(name); }
};

class ChainList : public Cloneable<ChainList> {
public:
    ChainList() = default;
    explicit ChainList(std::vector<std::shared_ptr<Link>> links);
    // Appends a child named by its index ("0", "1", ...).
    void add_link(std::shared_ptr<Link> link);
    void append(std::shared_ptr<Link> link) { add_link(std::move(link)); }
    Link& operator[](int64_t index);  // negative indexes count from the end; IndexError
    int64_t size() const;
    // Replaces the children by `links`, named "0", "1", ... again: Chainer's ChainList
    // __setitem__, __delitem__ and insert. ValueError (and no change) for a null link.
    void set_links(std::vector<std::shared_ptr<Link>> links);
};

// A layer of a Sequential: a link (called with forward(x)) or a function of one Variable.
using Layer = std::variant<std::shared_ptr<Link>, std::function<Variable(const Variable&)>>;

class Sequential : public Cloneable<Sequential, ChainList> {
public:
    Sequential() = default;
    explicit Sequential(std::vector<Layer> layers);
    // Appends a layer; links become children numbered among the links only.
    void append(Layer layer);
    // Calls the layers in order.
    Variable forward(const Variable& x) override;
    int64_t num_layers() const { return static_cast<int64_t>(layers_.size()); }
    // Replaces the layers (Chainer's Sequential insert, pop, remove, clear, ...); the links
    // are numbered among the links again. ValueError (and no change) for a null link or an
    // empty function.
    void set_layers(std::vector<Layer> layers);

private:
    // A link layer as its index among the children (so a copy calls its own children), or the function.
    std::vector<std::variant<int64_t, std::function<Variable(const Variable&)>>> layers_;
};

}  // namespace rensa::links
