// rensa._core: random seeding and the reporter (Reporter, report, report_scope).
//
// Observers are identified by address, as in C++: a bound object (a Link) by the
// address of its C++ object, so that C++ reports (a Classifier's loss) and Python
// registrations agree; any other Python object by its PyObject address.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/random.h"
#include "core/reporter.h"
#include "python/src/core/core.h"

namespace rensa::python {
namespace {

const void* observer_key(const py::handle& obj) {
    if (obj.is_none()) return nullptr;
    if (py::detail::get_type_info(Py_TYPE(obj.ptr())) != nullptr) {
        auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
        return inst->get_value_and_holder().value_ptr();
    }
    return obj.ptr();
}

Observation observation_of(const py::dict& values) {
    Observation out;
    for (const auto& [key, value] : values) out[key.cast<std::string>()] = to_array(value);
    return out;
}

// Chainer's observation values are Variables; the dict a scope fills gets them.
void copy_into(const Observation& from, const py::dict& to) {
    for (const auto& [key, value] : from) to[py::str(key)] = py::cast(Variable(value, false));
}

// One `with` scope of the reporter: `with reporter:`, `with reporter.scope(obs):`, or
// report_scope(obs). The C++ scope lives on the heap between __enter__ and __exit__.
struct ReporterContext {
    std::shared_ptr<Reporter> reporter;  // null for report_scope
    py::object target;                   // the dict to fill (None for `with reporter:`)
    Observation observation;
    std::unique_ptr<ReporterScope> reporter_scope;
    std::unique_ptr<ReportScope> report_scope;

    void enter() {
        if (reporter) {
            Observation* current = reporter->observation();
            reporter_scope =
                std::make_unique<ReporterScope>(*reporter, target.is_none() && current ? *current : observation);
        } else {
            report_scope = std::make_unique<ReportScope>(observation);
        }
    }
    void exit() {
        reporter_scope.reset();
        report_scope.reset();
        if (!target.is_none()) copy_into(observation, py::reinterpret_borrow<py::dict>(target));
    }
};

// The scopes opened by `with reporter:` on this thread, innermost last.
std::vector<std::unique_ptr<ReporterContext>>& with_stack() {
    thread_local std::vector<std::unique_ptr<ReporterContext>> stack;
    return stack;
}

void bind_reporter(py::module_& m) {
    py::class_<ReporterContext>(m, "_ReporterContext")
        .def("__enter__", [](ReporterContext& c) { c.enter(); })
        .def("__exit__", [](ReporterContext& c, const py::args&) { c.exit(); });
    py::classh<Reporter>(m, "Reporter", "Chainer's Reporter: collects reported values into observations.")
        .def(py::init<>())
        .def(
            "add_observer",
            [](Reporter& r, const std::string& name, const py::handle& observer) {
                r.add_observer(name, observer_key(observer));
            },
            py::arg("name"), py::arg("observer"),
            "Registers ``observer`` (any object, by identity) under ``name``: the values it reports get the "
            "prefix ``name/``.")
        .def(
            "add_observers",
            [](Reporter& r, const std::string& prefix, const py::iterable& observers) {
                std::vector<std::pair<std::string, const void*>> pairs;
                for (const py::handle item : observers) {
                    auto pair = py::reinterpret_borrow<py::tuple>(item);
                    pairs.emplace_back(pair[0].cast<std::string>(), observer_key(pair[1]));
                }
                r.add_observers(prefix, pairs);
            },
            py::arg("prefix"), py::arg("observers"),
            "Registers each ``(name, observer)`` pair of ``observers`` (a link's ``namedlinks()``, say) under "
            "``prefix + name``.")
        .def(
            "report",
            [](Reporter& r, const py::dict& values, const py::handle& observer) {
                r.report(observation_of(values), observer_key(observer));
            },
            py::arg("values"), py::arg("observer") = py::none(),
            "Records the dict ``values`` into the current observation. With an ``observer`` the keys become "
            "``<observer name>/<key>`` (KeyError for an unregistered observer); outside a scope the values are "
            "dropped, as in Chainer.")
        .def(
            "scope",
            [](const std::shared_ptr<Reporter>& r, const py::dict& observation) {
                return ReporterContext{r, observation, {}, {}, {}};
            },
            py::arg("observation"),
            "A context manager in which this reporter is current and what is reported goes into the dict "
            "``observation``.")
        .def("__enter__",
             [](const std::shared_ptr<Reporter>& r) {
                 auto c = std::make_unique<ReporterContext>(ReporterContext{r, py::none(), {}, {}, {}});
                 c->enter();
                 with_stack().push_back(std::move(c));
             })
        .def("__exit__",
             [](Reporter& r, const py::args&) {
                 auto& stack = with_stack();
                 RENSA_CHECK(!stack.empty() && stack.back()->reporter.get() == &r, ValueError,
                             "Reporter.__exit__: this reporter is not the innermost `with reporter:` scope");
                 stack.back()->exit();
                 stack.pop_back();
             })
        .def_property_readonly(
            "observation",
            [](const Reporter& r) -> py::object {
                if (!r.observation()) return py::none();
                py::dict out;
                copy_into(*r.observation(), out);
                return out;
            },
            "A dict copy of the observation being filled, or None outside a scope.");
    m.def(
        "report",
        [](const py::dict& values, const py::handle& observer) {
            rensa::report(observation_of(values), observer_key(observer));
        },
        py::arg("values"), py::arg("observer") = py::none(),
        "Reports values to the current reporter (chainer.report); nothing happens without one.");
    m.def(
        "report_scope",
        [](const py::dict& observation) {
            return ReporterContext{nullptr, observation, {}, {}, {}};
        },
        py::arg("observation"), "Collects what is reported in the scope into ``observation`` too.");
    m.def(
        "get_current_reporter",
        []() -> py::object {
            Reporter* r = rensa::get_current_reporter();
            if (!r) return py::none();
            return py::cast(r, py::return_value_policy::reference);
        },
        "The calling thread's current Reporter (chainer.get_current_reporter), or None when no reporter scope is "
        "open (Chainer raises IndexError there).");
}

}  // namespace

void bind_core_state(py::module_& m) {
    m.def(
        "seed", [](uint64_t value) { rensa::seed(value); }, py::arg("seed"),
        "Seeds rensa's global random generator (dropout, initializers, shuffling).");
    bind_reporter(m);
}

}  // namespace rensa::python
