#include "links/link.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "core/error.h"
#include "core/ops/elementwise.h"
#include "links/chain.h"
#include "links/initializers.h"

namespace rensa::links {
namespace {

// The demangled class name of `link` for error messages ("rensa::links::Linear").
std::string class_name(const Link& link) {
    const char* mangled = typeid(link).name();
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                     std::free);
    return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

}  // namespace

// --- Calling convention.

Variable Link::forward(const Variable&) {
    RENSA_THROW(NotImplementedError, class_name(*this), ": forward(x) is not implemented");
}

Variable Link::forward(const std::vector<Variable>& xs) {
    RENSA_THROW(NotImplementedError, class_name(*this), ": forward(xs) with ", xs.size(), " inputs is not implemented");
}

// --- Registration.

void Link::check_new_name(const std::string& name) const {
    RENSA_CHECK(!name.empty() && name.find('/') == std::string::npos, ValueError, class_name(*this), ": invalid name '",
                name, "' (must be non-empty and contain no '/')");
    auto taken = [&](const auto& entries) {
        for (const auto& e : entries) {
            if (e.name == name) return true;
        }
        return false;
    };
    RENSA_CHECK(!taken(params_) && !taken(persistents_) && !taken(children_), ValueError, class_name(*this),
                ": the name '", name, "' is already registered (as a parameter, persistent or child link)");
}

void Link::add_param_entry(const std::string& name, ParamGetter get) {
    check_new_name(name);
    const Parameter& p = get(*this);
    RENSA_CHECK(p.defined(), ValueError, class_name(*this), ": parameter '", name, "' is undefined");
    p.set_name(name);
    params_.push_back({name, std::move(get)});
}

void Link::add_persistent_entry(const std::string& name, PersistentGetter get) {
    check_new_name(name);
    persistents_.push_back({name, std::move(get)});
}

void Link::add_child_entry(const std::string& name, ChildGetter get, ChildSetter set) {
    check_new_name(name);
    Link* child = get(*this).get();
    RENSA_CHECK(child != nullptr, ValueError, class_name(*this), ": child link '", name, "' is null");
    RENSA_CHECK(child != this, ValueError, class_name(*this), ": cannot register a link as its own child '", name, "'");
    child->name_ = name;
    children_.push_back({name, std::move(get), std::move(set)});
}

const Parameter& Link::add_param(const std::string& name, std::optional<Shape> shape, Dtype dtype,
                                 initializers::InitializerPtr initializer) {
    if (!initializer) initializer = std::make_shared<initializers::NaN>(dtype);
    return add_param(name, Parameter(std::move(initializer), std::move(shape), dtype, name));
}

const Parameter& Link::add_param(const std::string& name, Parameter param) {
    check_new_name(name);
    const size_t i = owned_params_.size();
    owned_params_.push_back(std::move(param));
    try {
        add_param_entry(name, [i](Link& self) -> Parameter& { return self.owned_params_[i]; });
    } catch (...) {
        owned_params_.pop_back();
        throw;
    }
    return owned_params_[i];
}

namespace {
template <class T>
void add_owned_persistent(std::deque<std::variant<Array, int64_t, double, bool>>& owned, T value) {
    owned.emplace_back(std::in_place_type<T>, std::move(value));
}
}  // namespace

#define RENSA_LINK_ADD_PERSISTENT(T)                                                                    \
    void Link::add_persistent(const std::string& name, T value) {                                       \
        check_new_name(name);                                                                           \
        const size_t i = owned_persistents_.size();                                                     \
        add_owned_persistent(owned_persistents_, std::move(value));                                     \
        add_persistent_entry(name, [i](Link& self) -> PersistentRef {                                   \
            return std::visit([](auto& v) -> PersistentRef { return &v; }, self.owned_persistents_[i]); \
        });                                                                                             \
    }
RENSA_LINK_ADD_PERSISTENT(Array)
RENSA_LINK_ADD_PERSISTENT(int64_t)
RENSA_LINK_ADD_PERSISTENT(double)
RENSA_LINK_ADD_PERSISTENT(bool)
#undef RENSA_LINK_ADD_PERSISTENT

Link& Link::add_child(const std::string& name, std::shared_ptr<Link> link) {
    check_new_name(name);
    RENSA_CHECK(link != nullptr, ValueError, class_name(*this), ": child link '", name, "' is null");
    const size_t i = owned_children_.size();
    owned_children_.push_back(std::move(link));
    try {
        add_child_entry(
            name, [i](Link& self) -> std::shared_ptr<Link> { return self.owned_children_[i]; },
            [i](Link& self, std::shared_ptr<Link> copy) { self.owned_children_[i] = std::move(copy); });
    } catch (...) {
        owned_children_.pop_back();
        throw;
    }
    children_.back().owned = true;
    return *owned_children_[i];
}

void Link::clear_owned_children() {
    for (const auto& entry : children_) {
        if (entry.owned) entry.get(*this)->name_.clear();
    }
    std::erase_if(children_, [](const ChildEntry& entry) { return entry.owned; });
    owned_children_.clear();
}

Parameter Link::replace_param(const std::string& name, Parameter value) {
    for (auto& e : params_) {
        if (e.name != name) continue;
        Parameter& slot = e.get(*this);
        Parameter old = slot;
        slot = std::move(value);
        return old;
    }
    RENSA_THROW(KeyError, class_name(*this), ".replace_param: no parameter named '", name, "'");
}

// --- Lookup by name.

const Parameter& Link::param(const std::string& name) const {
    for (const auto& e : params_) {
        if (e.name == name) return e.get(const_cast<Link&>(*this));
    }
    RENSA_THROW(KeyError, class_name(*this), ": no parameter named '", name, "'");
}

PersistentRef Link::persistent(const std::string& name) {
    for (const auto& e : persistents_) {
        if (e.name == name) return e.get(*this);
    }
    RENSA_THROW(KeyError, class_name(*this), ": no persistent value named '", name, "'");
}

Array& Link::persistent_array(const std::string& name) {
    const PersistentRef ref = persistent(name);
    Array* const* array = std::get_if<Array*>(&ref);
    RENSA_CHECK(array != nullptr, ValueError, class_name(*this), ": persistent '", name, "' is not an array");
    return **array;
}

Link& Link::child(const std::string& name) {
    for (const auto& e : children_) {
        if (e.name == name) return *e.get(*this);
    }
    RENSA_THROW(KeyError, class_name(*this), ": no child link named '", name, "'");
}

// --- Traversal.

std::vector<Parameter> Link::params(bool include_uninit) const {
    std::vector<Parameter> out;
    for (auto& [name, p] : namedparams(include_uninit)) out.push_back(std::move(p));
    return out;
}

std::vector<std::pair<std::string, Parameter>> Link::namedparams(bool include_uninit) const {
    std::vector<std::pair<std::string, Parameter>> out;
    Link& self = const_cast<Link&>(*this);  // the getters take Link&; nothing is modified
    for (const auto& e : params_) {
        const Parameter& p = e.get(self);
        if (include_uninit || p.is_initialized()) out.emplace_back("/" + e.name, p);
    }
    for (const auto& e : children_) {
        for (auto& [path, p] : e.get(self)->namedparams(include_uninit)) {
            out.emplace_back("/" + e.name + path, std::move(p));
        }
    }
    return out;
}

std::vector<Link*> Link::links(bool skipself) {
    std::vector<Link*> out;
    for (auto& [name, link] : namedlinks(skipself)) out.push_back(link);
    return out;
}

std::vector<std::pair<std::string, Link*>> Link::namedlinks(bool skipself) {
    std::vector<std::pair<std::string, Link*>> out;
    if (!skipself) out.emplace_back("/", this);
    for (const auto& e : children_) {
        Link* child = e.get(*this).get();
        const std::string prefix = "/" + e.name;
        out.emplace_back(prefix, child);
        for (auto& [path, link] : child->namedlinks(true)) out.emplace_back(prefix + path, link);
    }
    return out;
}

std::vector<Link*> Link::children() {
    std::vector<Link*> out;
    for (const auto& e : children_) out.push_back(e.get(*this).get());
    return out;
}

std::vector<std::shared_ptr<Link>> Link::child_ptrs() const {
    std::vector<std::shared_ptr<Link>> out;
    Link& self = const_cast<Link&>(*this);  // the getters take Link&; nothing is modified
    for (const auto& e : children_) out.push_back(e.get(self));
    return out;
}

std::vector<std::pair<std::string, Parameter>> Link::own_params() const {
    std::vector<std::pair<std::string, Parameter>> out;
    for (const auto& e : params_) out.emplace_back(e.name, e.get(const_cast<Link&>(*this)));
    return out;
}

std::vector<std::pair<std::string, PersistentRef>> Link::own_persistents() {
    std::vector<std::pair<std::string, PersistentRef>> out;
    for (const auto& e : persistents_) out.emplace_back(e.name, e.get(*this));
    return out;
}

// --- Gradients and updates.

void Link::cleargrads() {
    for (const Parameter& p : params()) p.cleargrad();
}

void Link::zerograds() {
    for (const Parameter& p : params(false)) p.zerograd();
}

namespace {

// dst.grad += src.grad (Chainer's Parameter.addgrad: initialises dst to src's shape when lazy).
void addgrad(const std::string& path, const Parameter& dst, const Parameter& src) {
    if (!src.is_initialized() || !src.grad().defined()) return;
    if (!dst.is_initialized()) dst.initialize(src.shape());
    RENSA_CHECK(dst.shape() == src.shape(), DimensionError, "addgrads: parameter '", path, "' has shape ", dst.shape(),
                " but the other link's has shape ", src.shape());
    const Array src_grad = src.grad().to_device(dst.device());
    const Array dst_grad = dst.grad();
    if (!dst_grad.defined()) {
        dst.set_grad(src_grad.astype(dst.dtype()));
    } else {
        ops::add_inplace(dst_grad, src_grad);
    }
}

}  // namespace

void Link::addgrads(const Link& other) {
    const auto dst = namedparams();
    const auto src = other.namedparams();
    RENSA_CHECK(dst.size() == src.size(), DimensionError, "addgrads: ", class_name(*this), " has ", dst.size(),
                " parameters but the other link (", class_name(other), ") has ", src.size());
    for (size_t i = 0; i < dst.size(); ++i) {
        RENSA_CHECK(dst[i].first == src[i].first, DimensionError, "addgrads: parameter '", dst[i].first,
                    "' does not match the other link's '", src[i].first, "'");
        addgrad(dst[i].first, dst[i].second, src[i].second);
    }
}

namespace {

// Chainer's Variable.copydata: dst's array takes src's values (dst initialised to src's shape when lazy).
void copydata(const std::string& name, const Parameter& dst, const Parameter& src) {
    if (!src.is_initialized()) return;
    if (!dst.is_initialized()) dst.initialize(src.shape());
    RENSA_CHECK(dst.shape() == src.shape(), DimensionError, "copyparams: parameter '", name, "' has shape ",
                dst.shape(), " but the source's has shape ", src.shape());
    dst.array().assign(src.array().to_device(dst.device()));
}

// dst = src for a persistent value of the same kind (arrays in place when dst has one).
void copy_persistent_value(const std::string& name, const PersistentRef& dst, const PersistentRef& src) {
    RENSA_CHECK(dst.index() == src.index(), ValueError, "copyparams: persistent '", name,
                "' has another type in the source link");
    std::visit(
        [&](auto* d) {
            using T = std::remove_pointer_t<decltype(d)>;
            const T& value = *std::get<T*>(src);
            if constexpr (std::is_same_v<T, Array>) {
                if (d->defined() && value.defined() && d->shape() == value.shape()) {
                    d->assign(value.to_device(d->device()));
                } else {
                    *d = value.defined() ? value.copy() : Array{};
                }
            } else {
                *d = value;
            }
        },
        dst);
}

}  // namespace

void Link::copyparams(const Link& other, bool copy_persistent) {
    Link& src = const_cast<Link&>(other);  // the getters take Link&; nothing is modified
    for (const auto& e : params_) copydata(e.name, e.get(*this), src.param(e.name));
    if (copy_persistent) {
        for (const auto& e : persistents_) copy_persistent_value(e.name, e.get(*this), src.persistent(e.name));
    }
    for (const auto& e : children_) e.get(*this)->copyparams(src.child(e.name), copy_persistent);
}

void Link::enable_update() {
    for (const Parameter& p : params()) p.enable_update();
}

void Link::disable_update() {
    for (const Parameter& p : params()) p.disable_update();
}

bool Link::update_enabled() const {
    for (const Parameter& p : params()) {
        if (!p.update_enabled()) return false;
    }
    return true;
}

int64_t Link::count_params() const {
    int64_t n = 0;
    for (const Parameter& p : params(false)) n += p.size();
    return n;
}

// --- Devices.

void Link::to_device(Device device) {
    device_ = device;
    for (const auto& e : params_) e.get(*this).to_device(device);
    for (const auto& e : persistents_) {
        const PersistentRef ref = e.get(*this);
        if (Array* const* array = std::get_if<Array*>(&ref)) {
            if ((*array)->defined()) **array = (*array)->to_device(device);
        }
    }
    for (const auto& e : children_) e.get(*this)->to_device(device);
}

// --- Copies. See Note [Link copies].

std::shared_ptr<Link> Link::clone_object() const {
    RENSA_THROW(NotImplementedError, class_name(*this),
                ": copy() needs the class to derive from Cloneable<Derived, Base>");
}

namespace {

// A new parameter with the same initializer, dtype, device and update switch, freshly initialised.
Parameter init_copy(const Parameter& p) {
    Parameter q(p.initializer(), std::nullopt, p.dtype(), p.name());
    q.to_device(p.device());
    if (!p.update_enabled()) q.disable_update();
    if (p.is_initialized()) q.initialize(p.shape());
    return q;
}

}  // namespace

void Link::rebind_copy(CopyMode mode) {
    for (const auto& e : params_) {
        Parameter& p = e.get(*this);
        switch (mode) {
            case CopyMode::kShare:
                p = p.share_copy();
                break;
            case CopyMode::kCopy:
                p = p.deep_copy();
                break;
            case CopyMode::kInit:
                p = init_copy(p);
                break;
        }
    }
    if (mode != CopyMode::kShare) {
        for (const auto& e : persistents_) {
            const PersistentRef ref = e.get(*this);
            if (Array* const* array = std::get_if<Array*>(&ref)) {
                if ((*array)->defined()) **array = (*array)->copy();
            }
        }
    }
    for (const auto& e : children_) {
        std::shared_ptr<Link> copy = e.get(*this)->copy(mode);
        copy->name_ = e.name;
        e.set(*this, std::move(copy));
    }
}

std::shared_ptr<Link> Link::copy(CopyMode mode) const {
    std::shared_ptr<Link> ret = clone_object();
    ret->name_.clear();
    ret->rebind_copy(mode);
    return ret;
}

std::shared_ptr<Sequential> Link::repeat(int n_repeat, CopyMode mode) const {
    auto ret = std::make_shared<Sequential>();
    for (int i = 0; i < n_repeat; ++i) ret->append(copy(mode));
    return ret;
}

// --- Serialization: parameters, persistents, then children (Chainer's order).

void Link::serialize(const serializers::Serializer& serializer) {
    for (const auto& e : params_) e.get(*this).serialize(serializer, e.name);
    for (const auto& e : persistents_) {
        std::visit(
            [&](auto* value) {
                using T = std::remove_pointer_t<decltype(value)>;
                if constexpr (std::is_same_v<T, Array>) {
                    // A persistent array not created yet (lazy) is saved as None and assigned on load.
                    serializer(e.name, *value, [value](const Array& stored) { *value = stored; });
                } else {
                    serializer(e.name, *value);
                }
            },
            e.get(*this));
    }
    for (const auto& e : children_) e.get(*this)->serialize(serializer[e.name]);
}

}  // namespace rensa::links
