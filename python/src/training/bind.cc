// rensa._core.training: Trainer, updaters, triggers, extensions, Summary (bind_training).
#include <utility>

#include "python/src/training/training.h"

namespace rensa::python {

PyRef make_py_ref(py::object obj) {
    return PyRef(new py::object(std::move(obj)), [](py::object* p) {
        // At interpreter exit there is no GIL to take: leak instead of crashing.
        if (!Py_IsInitialized()) {
            (void)p->release();
            delete p;
            return;
        }
        py::gil_scoped_acquire gil;
        delete p;
    });
}

py::dict observation_to_python(const Observation& observation) {
    py::dict out;
    for (const auto& [key, value] : observation) {
        py::object v = to_numpy(value);
        if (value.ndim() == 0 && py::hasattr(v, "item")) v = py::float_(v.attr("item")());
        out[py::str(key)] = v;
    }
    return out;
}

Observation observation_from_python(py::handle obj) {
    Observation out;
    for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(obj)) {
        Array a = py::isinstance<Variable>(value) ? value.cast<const Variable&>().array() : to_array(value);
        out.insert_or_assign(key.cast<std::string>(), std::move(a));
    }
    return out;
}

PyFileBuf::PyFileBuf(py::object file) : file_{make_py_ref(std::move(file))} {}

PyFileBuf::~PyFileBuf() {
    if (!pending_.empty() && Py_IsInitialized()) write_out();
}

bool PyFileBuf::is_terminal() const {
    py::gil_scoped_acquire gil;
    try {
        py::object file = file_->is_none() ? py::module_::import("sys").attr("stdout") : *file_;
        return py::hasattr(file, "isatty") && file.attr("isatty")().cast<bool>();
    } catch (const py::error_already_set&) {
        return false;
    }
}

PyFileBuf::int_type PyFileBuf::overflow(int_type ch) {
    if (!traits_type::eq_int_type(ch, traits_type::eof())) pending_.push_back(traits_type::to_char_type(ch));
    if (pending_.size() >= 4096) write_out();
    return traits_type::not_eof(ch);
}

std::streamsize PyFileBuf::xsputn(const char* s, std::streamsize n) {
    pending_.append(s, static_cast<size_t>(n));
    if (pending_.size() >= 4096) write_out();
    return n;
}

int PyFileBuf::sync() {
    write_out();
    return 0;
}

void PyFileBuf::write_out() {
    if (pending_.empty()) return;
    py::gil_scoped_acquire gil;
    std::string text;
    text.swap(pending_);
    try {
        py::object file = file_->is_none() ? py::module_::import("sys").attr("stdout") : *file_;
        if (file.is_none()) return;
        file.attr("write")(py::str(text.data(), text.size()));
        if (py::hasattr(file, "flush")) file.attr("flush")();
    } catch (py::error_already_set& e) {
        // A report that cannot be printed must not stop training.
        e.discard_as_unraisable("rensa training report output");
    }
}

void bind_training(py::module_& m) {
    py::module_ t = m.def_submodule("training", "chainer.training: Trainer, updaters, triggers, extensions");
    bind_training_summary(t);
    bind_training_triggers(t);
    bind_training_trainer(t);
    bind_training_updaters(t);
    bind_training_extensions(t);
    bind_training_reports(t);
}

}  // namespace rensa::python
