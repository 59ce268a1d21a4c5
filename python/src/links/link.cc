// Link, Chain, ChainList, Sequential and Parameter in rensa._core. The Chainer
// conveniences (params, cleargrads, copy, to_device, ...) are bound here on the C++ Link,
// so built-in links (L.Linear) have them without a Python layer; rensa.link adds
// init_scope and attribute registration for Python subclasses.
#include <pybind11/functional.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "links/chain.h"
#include "links/initializers.h"
#include "links/parameter.h"
#include "python/src/convert/device_object.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

// link(*xs) / link.forward(*xs) for anything but one Variable (pybind11 tries this overload
// before converting a lone numpy array): forward(x) for one input, forward(xs) for several.
Variable forward_args(L::Link& self, const py::args& args) {
    if (args.size() == 1) return self.forward(to_variable(args[0]));
    std::vector<Variable> xs;
    xs.reserve(args.size());
    for (py::handle a : args) xs.push_back(to_variable(a));
    return self.forward(xs);
}

L::CopyMode to_copy_mode(const std::string& mode) {
    if (mode == "share") return L::CopyMode::kShare;
    if (mode == "copy") return L::CopyMode::kCopy;
    if (mode == "init") return L::CopyMode::kInit;
    RENSA_THROW(ValueError, "Link.copy: mode must be 'share', 'copy' or 'init', got '", mode, "'");
}

py::object persistent_to_python(const L::PersistentRef& ref) {
    return std::visit(
        [](auto* p) -> py::object {
            using T = std::remove_pointer_t<decltype(p)>;
            if constexpr (std::is_same_v<T, Array>) {
                if (!p->defined()) return py::none();
                return to_numpy(*p);
            } else {
                return py::cast(*p);
            }
        },
        ref);
}

// Writes `value` into the own persistent `name`; false when there is none by that name.
bool set_persistent(L::Link& self, const std::string& name, py::handle value) {
    for (auto& [key, ref] : self.own_persistents()) {
        if (key != name) continue;
        std::visit(
            [&](auto* p) {
                using T = std::remove_pointer_t<decltype(p)>;
                if constexpr (std::is_same_v<T, Array>) {
                    *p = to_array(value);
                } else {
                    *p = value.cast<T>();
                }
            },
            ref);
        return true;
    }
    return false;
}

void add_persistent(L::Link& self, const std::string& name, py::handle value) {
    if (py::isinstance<py::bool_>(value)) {
        self.add_persistent(name, value.cast<bool>());
    } else if (py::isinstance<py::int_>(value)) {
        self.add_persistent(name, value.cast<int64_t>());
    } else if (py::isinstance<py::float_>(value)) {
        self.add_persistent(name, value.cast<double>());
    } else {
        self.add_persistent(name, to_array(value));
    }
}

// An own parameter, child or persistent by name (Chainer keeps them as attributes).
py::object link_getattr(py::object self_obj, const std::string& name) {
    // A subclass's __init__ may look up attributes before calling the base __init__.
    auto* inst = reinterpret_cast<py::detail::instance*>(self_obj.ptr());
    if (!inst->get_value_and_holder().holder_constructed()) {
        throw py::attribute_error("'" + std::string(py::str(py::type::of(self_obj).attr("__name__"))) +
                                  "' object has no attribute '" + name + "' (Link.__init__ not called yet)");
    }
    auto& self = self_obj.cast<L::Link&>();
    for (auto& [key, param] : self.own_params()) {
        if (key == name) return py::cast(param);
    }
    for (L::Link* child : self.children()) {
        if (child->name() == name) return py::cast(child, py::return_value_policy::reference_internal, self_obj);
    }
    for (auto& [key, ref] : self.own_persistents()) {
        if (key == name) return persistent_to_python(ref);
    }
    throw py::attribute_error("'" + std::string(py::str(py::type::of(self_obj).attr("__name__"))) +
                              "' object has no attribute '" + name + "'");
}

void bind_parameter(py::module_& m) {
    py::classh<L::ParameterUpdateRule>(m, "ParameterUpdateRule")
        .def_readwrite("enabled", &L::ParameterUpdateRule::enabled);
    py::class_<L::Parameter, Variable>(m, "Parameter", R"doc(A Variable that a link owns and an optimizer updates.

``Parameter(initializer=None, shape=None, name=None, *, dtype=None)``:

* ``initializer`` is an array (it becomes the parameter's data, aliased), or an Initializer, a scalar or ``None``
  (``initializers.NaN``, Chainer's default) that fills the array.
* With a ``shape`` the array is created now; without one the parameter is uninitialised (``array`` is ``None``)
  until ``initialize(shape)``, which a link with lazy sizes calls at its first forward.
* ``dtype`` is used when the initializer names none (float32 by default).

Copies of the handle share the array, the grad and the metadata. ``Link.copy`` makes new parameters over the same
arrays (without grads or update rules).
)doc")
        .def(py::init([](py::handle initializer, py::handle shape, py::handle name, py::handle dtype) {
                 std::string n = name.is_none() ? std::string{} : name.cast<std::string>();
                 // Chainer: an array is the parameter's data (aliased), anything else initializes it.
                 bool is_array = !initializer.is_none() && !py::isinstance<initializers::Initializer>(initializer) &&
                                 py::hasattr(initializer, "shape") && py::len(initializer.attr("shape")) > 0;
                 if (is_array) return L::Parameter(to_array(initializer), n);
                 Dtype dt = dtype.is_none() ? Dtype::kFloat32 : to_dtype(dtype);
                 return L::Parameter(to_initializer(initializer), to_optional_shape(shape, "Parameter"), dt, n);
             }),
             py::arg("initializer") = py::none(), py::arg("shape") = py::none(), py::arg("name") = py::none(),
             py::kw_only(), py::arg("dtype") = py::none())
        .def_property_readonly("is_initialized", &L::Parameter::is_initialized, "Whether the array exists yet.")
        .def(
            "initialize",
            [](const L::Parameter& self, py::handle shape) {
                self.initialize(to_shape(shape, "Parameter.initialize"));
            },
            py::arg("shape"),
            "Creates the array of ``shape`` with the initializer, on the parameter's device; the grad becomes None. "
            "A no-op when already initialised with that shape, ValueError with another shape.")
        .def_property_readonly("initializer", &L::Parameter::initializer,
                               "The initializer that fills the array when it is created.")
        .def_property_readonly(
            "dtype", [](const L::Parameter& self) { return dtype_to_python(self.dtype()); },
            "The dtype of the array, or the dtype it will have once initialised.")
        .def_property(
            "array",
            [](const L::Parameter& self) -> py::object {
                return self.is_initialized() ? to_numpy(self.array()) : py::object(py::none());
            },
            [](const L::Parameter& self, py::handle value) { self.set_array(to_array(value)); },
            "The parameter's array (``None`` while uninitialised); assigning replaces it.")
        .def_property(
            "data",
            [](const L::Parameter& self) -> py::object {
                return self.is_initialized() ? to_numpy(self.array()) : py::object(py::none());
            },
            [](const L::Parameter& self, py::handle value) { self.set_array(to_array(value)); },
            "The same as ``array`` (Chainer's older name).")
        // Filled by Optimizer.setup (optimizers bind UpdateRule as a subclass of ParameterUpdateRule).
        .def_property(
            "update_rule",
            [](const L::Parameter& self) -> py::object {
                L::ParameterUpdateRule* rule = self.update_rule();
                if (rule == nullptr) return py::none();
                return py::cast(rule, py::return_value_policy::reference);
            },
            [](const L::Parameter& self, std::shared_ptr<L::ParameterUpdateRule> rule) {
                self.set_update_rule(std::move(rule));
            },
            "The optimizer's update rule for this parameter (``None`` before ``Optimizer.setup``).")
        .def("update", &L::Parameter::update, py::call_guard<py::gil_scoped_release>(),
             "Updates the array from its grad with the update rule, when there is a rule and updates are enabled.")
        .def_property_readonly("update_enabled", &L::Parameter::update_enabled,
                               "Whether ``update`` changes the parameter.")
        .def("enable_update", &L::Parameter::enable_update,
             "Lets ``update`` change the parameter again (also enables the update rule).")
        .def("disable_update", &L::Parameter::disable_update,
             "Keeps ``update`` from changing the parameter (also disables the update rule).")
        .def(
            "to_device",
            [](const L::Parameter& self, py::handle device) {
                self.to_device(to_device(device));
                return self;
            },
            py::arg("device"),
            "Moves the array and grad to ``device`` (or records it for an uninitialised parameter); returns the "
            "parameter.")
        .def("_share_copy", &L::Parameter::share_copy)
        .def("_deep_copy", &L::Parameter::deep_copy);
}

// A Python object as a link's binding data: released with the GIL taken (links may die in
// C++ loops that run without it), leaked when the interpreter is already gone.
std::shared_ptr<const void> python_binding_data(py::object obj) {
    return std::shared_ptr<const void>(new py::object(std::move(obj)), [](const void* p) {
        auto* obj = static_cast<const py::object*>(p);
        if (Py_IsInitialized() == 0) return;
        py::gil_scoped_acquire gil;
        delete obj;
    });
}

py::object link_xp(const L::Link& self) {
    if (self.device().kind == DeviceKind::kNative) return py::module_::import("numpy");
    return py::module_::import("rensa");
}

void bind_link(py::module_& m) {
    using Rule = py::return_value_policy;
    py::classh<L::Link, PyLink<L::Link>>(m, "Link", py::dynamic_attr())
        .def(py::init<>())
        .def(py::init([](const L::Link& source) { return std::make_shared<PyLink<L::Link>>(source); }),
             py::arg("_source"))
        .def_property_readonly("name", &L::Link::name)
        // Straight to the C++ forward: one input, or several.
        .def(
            "__call__", [](L::Link& self, const Variable& x) { return self.forward(x); }, py::arg("x"))
        .def("__call__", &forward_args)
        .def(
            "forward", [](L::Link& self, const Variable& x) { return self.forward(x); }, py::arg("x"))
        .def("forward", &forward_args)
        .def("__getattr__", &link_getattr)
        .def("params", &L::Link::params, py::arg("include_uninit") = true)
        .def("namedparams", &L::Link::namedparams, py::arg("include_uninit") = true)
        .def("links", &L::Link::links, py::arg("skipself") = false, Rule::reference_internal)
        .def("namedlinks", &L::Link::namedlinks, py::arg("skipself") = false, Rule::reference_internal)
        .def("children", &L::Link::children, Rule::reference_internal)
        .def("_own_params", &L::Link::own_params)
        .def("_own_persistents",
             [](L::Link& self) {
                 py::list out;
                 for (auto& [key, ref] : self.own_persistents())
                     out.append(py::make_tuple(key, persistent_to_python(ref)));
                 return out;
             })
        .def("_set_persistent", &set_persistent)
        .def("cleargrads", &L::Link::cleargrads)
        .def("zerograds", &L::Link::zerograds)
        .def("addgrads", &L::Link::addgrads, py::arg("link"))
        .def("copyparams", &L::Link::copyparams, py::arg("link"), py::arg("copy_persistent") = true)
        .def("enable_update", &L::Link::enable_update)
        .def("disable_update", &L::Link::disable_update)
        .def_property_readonly("update_enabled", &L::Link::update_enabled)
        .def("count_params", &L::Link::count_params)
        .def(
            "to_device",
            [](py::object self, py::handle device) {
                self.cast<L::Link&>().to_device(to_device(device));
                return self;
            },
            py::arg("device"))
        .def("to_cpu",
             [](py::object self) {
                 self.cast<L::Link&>().to_device(Device::native());
                 return self;
             })
        .def(
            "to_gpu",
            [](py::object self, py::handle device) {
#if RENSA_PY_WITH_CUDA
                Device d = to_gpu_device(device);
                self.cast<L::Link&>().to_device(d);
                return self;
#else
                (void)self;
                (void)device;
                RENSA_THROW(DeviceError, "Link.to_gpu: this rensa was built without CUDA (use to_device('native'))");
#endif
            },
            py::arg("device") = py::none())
        .def_property_readonly("device", [](const L::Link& self) { return device_object(self.device()); })
        .def_property_readonly("xp", &link_xp)
        .def(
            "copy", [](const L::Link& self, const std::string& mode) { return self.copy(to_copy_mode(mode)); },
            py::arg("mode") = "share")
        .def("_clone_object", &L::Link::shallow_copy)
        // rensa.link_hooks: a computed weight in place of a parameter for one forward.
        .def(
            "_replace_param",
            [](L::Link& self, const std::string& name, const Variable& value) {
                return self.replace_param(name, self.param(name).stand_in(value));
            },
            py::arg("name"), py::arg("value"))
        .def("_restore_param", &L::Link::replace_param, py::arg("name"), py::arg("param"))
        // What rensa._link_copy records of a built-in link's construction (None if nothing).
        .def("_set_init_args",
             [](L::Link& self, py::object args) { self.set_binding_data(python_binding_data(std::move(args))); })
        .def("_init_args",
             [](const L::Link& self) -> py::object {
                 if (!self.binding_data()) return py::none();
                 return *static_cast<const py::object*>(self.binding_data().get());
             })
        .def(
            "repeat",
            [](const L::Link& self, int n_repeat, const std::string& mode) {
                return self.repeat(n_repeat, to_copy_mode(mode));
            },
            py::arg("n_repeat"), py::arg("mode") = "init")
        .def("serialize", &L::Link::serialize, py::arg("serializer"))
        .def(
            "_add_param",
            [](L::Link& self, const std::string& name, py::handle shape, py::handle dtype, py::handle initializer) {
                Dtype dt = dtype.is_none() ? Dtype::kFloat32 : to_dtype(dtype);
                return self.add_param(name, to_optional_shape(shape, "Link.add_param"), dt,
                                      to_initializer(initializer));
            },
            py::arg("name"), py::arg("shape") = py::none(), py::arg("dtype") = py::none(),
            py::arg("initializer") = py::none())
        .def(
            "_add_param_object",
            [](L::Link& self, const std::string& name, const L::Parameter& param) {
                return self.add_param(name, param);
            },
            py::arg("name"), py::arg("param"))
        .def("_add_persistent", &add_persistent, py::arg("name"), py::arg("value"));
}

}  // namespace

void bind_link_classes(py::module_& m) {
    bind_parameter(m);
    bind_link(m);
}

}  // namespace rensa::python::links_detail
