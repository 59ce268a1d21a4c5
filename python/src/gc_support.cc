// The collector support of Note [Garbage collection through C++] (gc_support.h).
#include "python/src/gc_support.h"

#include <memory>
#include <string_view>
#include <vector>

#include "links/link.h"
#include "optimizers/optimizer.h"
#include "training/extension.h"
#include "training/extensions/evaluator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace rensa::python::gc_support {
namespace {

namespace shc = py::detail::smart_holder_type_caster_support;

// Reports to the collector's visit function; the first non-zero result stops the walk.
class Visitor {
public:
    Visitor(visitproc visit, void* arg) : visit_{visit}, arg_{arg} {}

    void report(PyObject* obj) {
        if (result_ == 0 && obj != nullptr) result_ = visit_(obj, arg_);
    }
    // `p` is held by the object being walked; `copies` more copies of it are the caller's
    // temporaries. Reports what p keeps alive when p has no other owner.
    template <class T>
    void held(const std::shared_ptr<T>& p, long copies = 0);
    int result() const { return result_; }

private:
    visitproc visit_;
    void* arg_;
    int result_ = 0;
};

// What each family's C++ objects hold (overloads picked by the static type of the pointer).
void add_edges(links::Link& link, Visitor& v) {
    for (const auto& child : link.child_ptrs()) v.held(child, 1);
}
void add_edges(optimizers::Optimizer& optimizer, Visitor& v) { v.held(optimizer.target_ptr()); }
void add_edges(training::Updater& updater, Visitor& v) {
    // The C++ StandardUpdater's own map (a qualified call: never a Python override).
    if (auto* standard = dynamic_cast<training::updaters::StandardUpdater*>(&updater)) {
        for (const auto& [name, optimizer] : standard->StandardUpdater::get_all_optimizers()) v.held(optimizer, 1);
    }
}
void add_edges(training::Trainer& trainer, Visitor& v) {
    v.held(trainer.updater_ptr());
    for (const auto& extension : trainer.extensions()) v.held(extension, 1);
}
void add_edges(training::Extension& extension, Visitor& v) {
    if (auto* evaluator = dynamic_cast<training::extensions::Evaluator*>(&extension)) {
        for (const auto& [name, target] : evaluator->get_all_targets()) v.held(target, 1);
    }
}

template <class T>
void Visitor::held(const std::shared_ptr<T>& p, long copies) {
    if (result_ != 0 || p == nullptr || p.use_count() != 1 + copies) return;
    // The block pybind11 made for a trampoline's instance owns one reference to it; the one for
    // an object returned by reference (reference_internal) owns one to the object's parent.
    if (const auto* self = std::get_deleter<shc::shared_ptr_trampoline_self_life_support>(p)) {
        report(self->self);
    } else if (const auto* parent = std::get_deleter<shc::shared_ptr_parent_life_support>(p)) {
        report(parent->parent);
    } else {
        add_edges(*p, *this);
    }
}

// A bound base class and the walk of what its objects hold.
struct Family {
    PyTypeObject* type;
    void (*edges)(void* value, Visitor& v);
};
std::vector<Family>& families() {
    static std::vector<Family> all;
    return all;
}

template <class Base>
void add_family() {
    const py::detail::type_info* info = py::detail::get_type_info(typeid(Base));
    if (info == nullptr) return;  // a development build without its bind file (RENSA_PY_ONLY)
    for (const Family& f : families()) {
        if (f.type == info->type) return;
    }
    // pybind11's own cast for single inheritance: the value pointer is the base's.
    families().push_back({info->type, [](void* value, Visitor& v) { add_edges(*static_cast<Base*>(value), v); }});
}

// True when a Python subclass's own traverse already visits the __dict__ of a bound base with
// py::dynamic_attr (CPython >= 3.11's managed dicts); set by probe_subclass_dict at import.
bool subclass_visits_dict = true;

int traverse(PyObject* self, visitproc visit, void* arg);

// The nearest class of self's type that has this traverse (the bound class, not a Python subclass).
PyTypeObject* bound_type(PyTypeObject* type) {
    while (type != nullptr && type->tp_traverse != &traverse) type = type->tp_base;
    return type;
}

bool has_dict(PyTypeObject* type) {
#ifdef PYBIND11_BACKWARD_COMPATIBILITY_TP_DICTOFFSET
    return type->tp_dictoffset != 0;
#else
    return PyType_HasFeature(type, Py_TPFLAGS_MANAGED_DICT) != 0;
#endif
}

// The bound class's __dict__, unless a Python subclass's traverse visits it already.
bool owns_dict(PyObject* self) {
    PyTypeObject* type = Py_TYPE(self);
    if (type->tp_traverse != &traverse && subclass_visits_dict) return false;
    PyTypeObject* bound = bound_type(type);
    return bound != nullptr && has_dict(bound);
}

int visit_dict(PyObject* self, visitproc visit, void* arg) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_VisitManagedDict(self, visit, arg);
#else
    PyObject** dict = _PyObject_GetDictPtr(self);
    if (dict != nullptr) Py_VISIT(*dict);
    return 0;
#endif
}

void clear_dict(PyObject* self) {
#if PY_VERSION_HEX >= 0x030D0000
    PyObject_ClearManagedDict(self);
#else
    PyObject** dict = _PyObject_GetDictPtr(self);
    if (dict != nullptr) Py_CLEAR(*dict);
#endif
}

// What the instance's C++ object holds, when the instance is its only owner.
void visit_cpp(PyObject* self, Visitor& v) {
    const std::vector<py::detail::type_info*>& infos = py::detail::all_type_info(Py_TYPE(self));
    if (infos.size() != 1 || !infos[0]->simple_ancestors ||
        infos[0]->holder_enum_v != py::detail::holder_enum_t::smart_holder) {
        return;
    }
    auto* inst = reinterpret_cast<py::detail::instance*>(self);
    // A collection can run inside pybind11's tp_new, between the allocation (tracked, zeroed)
    // and allocate_layout: all_type_info of a new Python subclass makes a weak reference to
    // it, which may collect. That instance has no values and holders yet.
    if (!inst->simple_layout && inst->nonsimple.values_and_holders == nullptr) return;
    const py::detail::value_and_holder vh = inst->get_value_and_holder();
    if (!vh.holder_constructed() || vh.value_ptr() == nullptr) return;
    if (vh.holder<py::memory::smart_holder>().vptr.use_count() != 1) return;  // C++ owns it too
    for (const Family& f : families()) {
        if (PyType_IsSubtype(infos[0]->type, f.type)) {
            f.edges(vh.value_ptr(), v);
            return;
        }
    }
}

int traverse(PyObject* self, visitproc visit, void* arg) {
    if (owns_dict(self)) {
        if (const int r = visit_dict(self, visit, arg)) return r;
    }
    // https://docs.python.org/3/c-api/typeobj.html#c.PyTypeObject.tp_traverse (heap types)
    Py_VISIT(Py_TYPE(self));
    Visitor v{visit, arg};
    visit_cpp(self, v);
    return v.result();
}

int clear(PyObject* self) {
    if (owns_dict(self)) clear_dict(self);
    return 0;
}

// The probe: a class with a __dict__ whose own traverse visits only the type.
struct Probe {};

int probe_traverse(PyObject* self, visitproc visit, void* arg) {
    Py_VISIT(Py_TYPE(self));
    return 0;
}

bool probe_subclass_dict(py::module_& m) {
    py::class_<Probe> probe(
        m, "_GcProbe", py::dynamic_attr(), py::module_local(),
        py::custom_type_setup([](PyHeapTypeObject* heap_type) { heap_type->ht_type.tp_traverse = &probe_traverse; }));
    probe.def(py::init<>());
    const py::object subclass =
        py::module_::import("builtins").attr("type")("_GcProbeSubclass", py::make_tuple(probe), py::dict());
    py::object obj = subclass();
    obj.attr("x") = 1;
    const py::object dict = obj.attr("__dict__");
    bool visited = false;
    for (py::handle r : py::module_::import("gc").attr("get_referents")(obj)) visited = visited || r.is(dict);
    py::delattr(m, "_GcProbe");
    return visited;
}

bool is_rensa_type(PyTypeObject* type) { return std::string_view{type->tp_name}.starts_with("rensa."); }

}  // namespace

void enable_gc(PyHeapTypeObject* heap_type) {
    PyTypeObject* type = &heap_type->ht_type;
    type->tp_flags |= Py_TPFLAGS_HAVE_GC;
    type->tp_traverse = &traverse;
    type->tp_clear = &clear;
}

void install(py::module_& m) {
    add_family<links::Link>();
    add_family<optimizers::Optimizer>();
    add_family<training::Trainer>();
    add_family<training::Updater>();
    add_family<training::Extension>();
    subclass_visits_dict = probe_subclass_dict(m);
    // The classes with a __dict__ got pybind11's traverse (or ours, from a base with
    // custom_type_setup); this module's are given ours. Other modules' types are left alone.
    for (const auto& [type, infos] : py::detail::get_internals().registered_types_py) {
        (void)infos;
        if (!is_rensa_type(type) || !PyType_HasFeature(type, Py_TPFLAGS_HAVE_GC)) continue;
        if (type->tp_traverse == &py::detail::pybind11_traverse || type->tp_traverse == &traverse) {
            type->tp_traverse = &traverse;
            type->tp_clear = &clear;
        }
    }
}

}  // namespace rensa::python::gc_support
