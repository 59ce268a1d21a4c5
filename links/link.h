#pragma once
// Link (chainer.Link): a building block with named parameters, persistent values and,
// for Chain / ChainList / Sequential (links/chain.h), child links.
//
// Registration names members through pointers-to-member, so that a copy of a link can
// rebind them (see Note [Link copies]):
//
//   class Linear : public Cloneable<Linear> {
//   public:
//       Parameter W, b;
//       Linear(std::optional<int64_t> in_size, int64_t out_size) {
//           register_param("W", &Linear::W, Parameter(nullptr, ...));   // LeCunNormal, lazy shape
//           register_param("b", &Linear::b, Parameter(initializers::constant(0), Shape{out_size}));
//       }
//       Variable forward(const Variable& x) override;
//   };
//
//   class MLP : public Cloneable<MLP, Chain> {
//   public:
//       std::shared_ptr<Linear> l1, l2;
//       MLP() {
//           register_link("l1", &MLP::l1, std::make_shared<Linear>(std::nullopt, 100));
//           register_link("l2", &MLP::l2, std::make_shared<Linear>(100, 10));
//       }
//       Variable forward(const Variable& x) override { return (*l2)(F::relu((*l1)(x))); }
//   };
//
// Links that need no member (built at run time) use add_param / add_persistent /
// Chain::add_link and reach the values by name: param("W"), persistent_array("avg_mean").
//
// Note [Link copies]: copy() copy-constructs the most derived object (Cloneable gives
// the virtual for that), so every member is copied, then walks the registry of the copy
// and replaces each registered parameter by a new Parameter over the same array (mode
// kShare: no grad, no update rule), a copied array (kCopy) or a freshly initialised one
// (kInit), and each child by the child's own copy(mode). Persistent arrays are aliased
// under kShare and copied otherwise. Links are held by std::shared_ptr and are not
// copy-assignable.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "autograd/variable.h"
#include "core/device.h"
#include "links/parameter.h"
#include "serializers/serializer.h"

namespace rensa::links {

class Sequential;

enum class CopyMode { kShare, kCopy, kInit };

// A registered persistent value: arrays (avg_mean) and scalars (N, decay counters).
using PersistentRef = std::variant<Array*, int64_t*, double*, bool*>;

class Link {
public:
    Link() = default;
    virtual ~Link() = default;
    Link& operator=(const Link&) = delete;

    // The name the parent registered this link under ("" for a root).
    const std::string& name() const { return name_; }

    // --- Chainer's calling convention. One input goes to forward(x), several to forward(xs).
    // The defaults throw NotImplementedError naming the link's class.
    virtual Variable forward(const Variable& x);
    virtual Variable forward(const std::vector<Variable>& xs);
    template <class... Vs>
    Variable operator()(const Vs&... xs) {
        if constexpr (sizeof...(Vs) == 1) {
            return forward(xs...);
        } else {
            return forward(std::vector<Variable>{Variable(xs)...});
        }
    }

    // --- Traversal, in registration order; this link's own entries before its children's.
    // Parameters of this link and its descendants. include_uninit=false skips lazy ones.
    std::vector<Parameter> params(bool include_uninit = true) const;
    // ("/l1/W", W) pairs: '/'-joined names from this link.
    std::vector<std::pair<std::string, Parameter>> namedparams(bool include_uninit = true) const;
    // This link (unless skipself) and every descendant, depth first.
    std::vector<Link*> links(bool skipself = false);
    // ("/", this), ("/l1", l1), ... ; names of descendants only when skipself.
    std::vector<std::pair<std::string, Link*>> namedlinks(bool skipself = false);
    // Direct children only.
    std::vector<Link*> children();
    // The shared_ptrs holding the direct children, in registration order. They are copies, so
    // each use_count() is one more than the holders'. For the Python bindings, which report the
    // Python objects a link keeps alive to Python's garbage collector (python/src/gc_support.h).
    std::vector<std::shared_ptr<Link>> child_ptrs() const;
    // This link's own parameters / persistents (not the children's), with their names.
    std::vector<std::pair<std::string, Parameter>> own_params() const;
    std::vector<std::pair<std::string, PersistentRef>> own_persistents();

    // The own parameter / persistent / child named `name`; KeyError when there is none.
    const Parameter& param(const std::string& name) const;
    PersistentRef persistent(const std::string& name);
    Array& persistent_array(const std::string& name);
    Link& child(const std::string& name);

    // --- Gradients and updates (whole subtree).
    void cleargrads();
    void zerograds();
    // grad += other's grad, parameter by parameter (same structure; DimensionError otherwise).
    void addgrads(const Link& other);
    // Copies other's parameter arrays (and persistents) into this link's, in place.
    void copyparams(const Link& other, bool copy_persistent = true);
    void enable_update();
    void disable_update();
    // True when every parameter's updates are enabled.
    bool update_enabled() const;
    // Number of elements over initialised parameters (Chainer warns about lazy ones; we skip them).
    int64_t count_params() const;

    // --- Devices: moves parameters, grads and persistent arrays (lazy ones remember it).
    void to_device(Device device);
    Device device() const { return device_; }

    // --- Copies (See Note [Link copies]). A link that does not derive from Cloneable throws
    // NotImplementedError naming its class.
    [[nodiscard]] std::shared_ptr<Link> copy(CopyMode mode = CopyMode::kShare) const;
    // A link of the same class over the same parameters, persistent arrays and children: the
    // copy constructor's copy, with no rebinding (Chainer's copy.copy of a link).
    [[nodiscard]] std::shared_ptr<Link> shallow_copy() const { return clone_object(); }
    // n copies (copy(mode)) in a Sequential.
    [[nodiscard]] std::shared_ptr<Sequential> repeat(int n_repeat, CopyMode mode = CopyMode::kInit) const;

    // Opaque data a language binding attaches to this link; copies share it, serializers
    // ignore it. The Python bindings keep the constructor call there (for pickle).
    const std::shared_ptr<const void>& binding_data() const { return binding_data_; }
    void set_binding_data(std::shared_ptr<const void> data) { binding_data_ = std::move(data); }

    // Parameters, then persistents, then children under their names (Chainer's order).
    virtual void serialize(const serializers::Serializer& serializer);

    // --- Registration without members (Chainer's add_param / add_persistent).
    // A new parameter owned by this link; initializer null means NaN (Chainer's default).
    const Parameter& add_param(const std::string& name, std::optional<Shape> shape = std::nullopt,
                               Dtype dtype = Dtype::kFloat32, initializers::InitializerPtr initializer = nullptr);
    // Registers an existing parameter handle (aliased) under `name`.
    const Parameter& add_param(const std::string& name, Parameter param);
    // Puts `value` in place of the own parameter `name` (member or not) and returns the one
    // it replaces; KeyError when there is none. For link hooks that swap a weight around one
    // forward (Chainer sets the attribute); they put the original back afterwards.
    Parameter replace_param(const std::string& name, Parameter value);
    // Registers a persistent owned by this link.
    void add_persistent(const std::string& name, Array value);
    void add_persistent(const std::string& name, int64_t value);
    void add_persistent(const std::string& name, double value);
    void add_persistent(const std::string& name, bool value);

protected:
    Link(const Link&) = default;  // for Cloneable: copies the registry (see Note [Link copies])

    // Registers member `member` of the most derived class D and sets it to `value`.
    template <class D>
    void register_param(const std::string& name, Parameter D::*member, Parameter value) {
        static_cast<D&>(*this).*member = std::move(value);
        add_param_entry(name, [member](Link& self) -> Parameter& { return static_cast<D&>(self).*member; });
    }
    // Registers a persistent member (Array, int64_t, double or bool) of D.
    template <class D, class T>
    void register_persistent(const std::string& name, T D::*member) {
        add_persistent_entry(name, [member](Link& self) -> PersistentRef { return &(static_cast<D&>(self).*member); });
    }
    // Registers a child link held in member `member` of D and sets it to `link`.
    template <class D, class C>
    void register_link(const std::string& name, std::shared_ptr<C> D::*member, std::shared_ptr<C> link) {
        static_cast<D&>(*this).*member = std::move(link);
        add_child_entry(
            name, [member](Link& self) -> std::shared_ptr<Link> { return static_cast<D&>(self).*member; },
            [member](Link& self, std::shared_ptr<Link> copy) {
                static_cast<D&>(self).*member = std::dynamic_pointer_cast<C>(std::move(copy));
            });
    }

    using ParamGetter = std::function<Parameter&(Link&)>;
    using PersistentGetter = std::function<PersistentRef(Link&)>;
    using ChildGetter = std::function<std::shared_ptr<Link>(Link&)>;
    using ChildSetter = std::function<void(Link&, std::shared_ptr<Link>)>;
    void add_param_entry(const std::string& name, ParamGetter get);
    void add_persistent_entry(const std::string& name, PersistentGetter get);
    void add_child_entry(const std::string& name, ChildGetter get, ChildSetter set);

    // The copy constructor of the most derived class, behind a virtual (Cloneable overrides it).
    virtual std::shared_ptr<Link> clone_object() const;

    // Registers a child owned by this link (Chain::add_link, ChainList::add_link).
    Link& add_child(const std::string& name, std::shared_ptr<Link> link);
    // Unregisters every child add_child registered (their names become ""); the children held
    // in members stay. For ChainList's and Sequential's editing (set_links, set_layers).
    void clear_owned_children();

    // Where the link lives: set by to_device; lazy parameters are created there.
    Device device_ = default_device();

private:
    struct ParamEntry {
        std::string name;
        ParamGetter get;
    };
    struct PersistentEntry {
        std::string name;
        PersistentGetter get;
    };
    struct ChildEntry {
        std::string name;
        ChildGetter get;
        ChildSetter set;
        bool owned = false;  // registered by add_child, held in owned_children_
    };
    void check_new_name(const std::string& name) const;
    void rebind_copy(CopyMode mode);

    std::string name_;
    std::vector<ParamEntry> params_;
    std::vector<PersistentEntry> persistents_;
    std::vector<ChildEntry> children_;
    // Storage of the member-less registrations (deques: references stay valid). Copied
    // with the link, so the getters of a copy reach the copy's own storage.
    std::deque<Parameter> owned_params_;
    std::deque<std::variant<Array, int64_t, double, bool>> owned_persistents_;
    std::deque<std::shared_ptr<Link>> owned_children_;
    std::shared_ptr<const void> binding_data_;
};

// Gives Derived (a direct or indirect subclass of Base) the copy that Link::copy needs.
template <class Derived, class Base = Link>
class Cloneable : public Base {
public:
    using Base::Base;

protected:
    Cloneable() = default;
    Cloneable(const Cloneable&) = default;
    std::shared_ptr<Link> clone_object() const override {
        return std::make_shared<Derived>(static_cast<const Derived&>(*this));
    }
};

}  // namespace rensa::links
