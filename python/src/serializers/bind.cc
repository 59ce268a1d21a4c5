// rensa._core.serializers: Chainer's save_npz / load_npz, DictionarySerializer and
// NpzDeserializer, and the Python side of the serialize protocol: a user object's
// serialize(serializer) calls `x = serializer('key', x)` and `child.serialize(serializer['c'])`,
// and C++ objects (Link, Optimizer, Trainer, ...) walk the same Serializer in C++.
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"
#include "python/src/bind.h"
#include "python/src/serializers/serializers.h"
#include "serializers/npz.h"
#include "serializers/serializer.h"

namespace rensa::python {
namespace {

using serializers::LoadNpzOptions;
using serializers::NpzLoader;
using serializers::NpzSaver;
using serializers::SaveNpzOptions;
using serializers::Serializer;
using serializers::SerializerBackend;

bool is_instance_of_bound(const py::handle& obj, const std::type_info& type) {
    const auto* info = py::detail::get_type_info(type);
    return info != nullptr && PyObject_IsInstance(obj.ptr(), reinterpret_cast<PyObject*>(info->type)) == 1;
}

// A strong reference that C++ may copy and drop without the GIL (the backend's queue).
std::shared_ptr<py::object> shared_object(py::object obj) {
    return {new py::object(std::move(obj)), [](py::object* p) {
                if (!Py_IsInitialized()) {
                    (void)p->release();  // the interpreter is gone: nothing to decref
                } else {
                    py::gil_scoped_acquire gil;
                    p->release().dec_ref();
                }
                delete p;
            }};
}

// The commit pass's backend (See Note [Python loads in two passes]), one per load: the values
// the check passes staged, by full key. C++ objects read nothing from it.
class StagingBackend final : public SerializerBackend {
public:
    ~StagingBackend() override {
        if (!Py_IsInitialized()) {
            for (auto& [key, value] : staged_) (void)value.release();
            return;
        }
        py::gil_scoped_acquire gil;
        staged_.clear();
    }
    bool is_loading() const override { return true; }
    void save(const std::string& key, const Array&) override {
        RENSA_THROW(ValueError, "serializer: cannot save '", key, "' while loading");
    }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return std::nullopt; }
    std::optional<std::string> load_string(const std::string&) override { return std::nullopt; }
    void defer(std::function<void()>) override {}  // the check pass queued the C++ assignments

    void stage(const std::string& key, py::object value) { staged_[key] = std::move(value); }
    const py::object* staged(const std::string& key) const {
        const auto it = staged_.find(key);
        return it == staged_.end() ? nullptr : &it->second;
    }

    int checking = 0;                     // check passes running on this load
    SerializerBackend* source = nullptr;  // the load's backend, while a commit pass runs

private:
    std::unordered_map<std::string, py::object> staged_;
};

// The load each backend is running, by backend; entries expire with the load's queue.
std::unordered_map<const SerializerBackend*, std::weak_ptr<StagingBackend>>& loads() {
    static auto* all = new std::unordered_map<const SerializerBackend*, std::weak_ptr<StagingBackend>>();
    return *all;
}

std::shared_ptr<StagingBackend> staging_of(const SerializerBackend& backend, bool make) {
    auto& all = loads();
    if (const auto it = all.find(&backend); it != all.end()) {
        if (auto staging = it->second.lock()) return staging;
    }
    if (!make) return nullptr;
    std::erase_if(all, [](const auto& entry) { return entry.second.expired(); });
    auto staging = std::make_shared<StagingBackend>();
    all[&backend] = staging;
    return staging;
}

// A loaded scalar, read now (not deferred): the Python protocol returns the value.
std::optional<Array> load_now(const Serializer& s, const std::string& key, Dtype dtype,
                              const std::optional<Shape>& shape) {
    std::optional<Array> stored = s.backend().load(s.key(key), dtype, shape);
    if (!stored || !stored->defined()) return std::nullopt;
    return stored;
}

template <class T>
py::object scalar_call(const Serializer& s, const std::string& key, const py::object& value, Dtype dtype) {
    if (!s.is_loading()) {
        T v = value.cast<T>();
        s(key, v);
        return value;
    }
    const std::optional<Array> stored = load_now(s, key, dtype, Shape{});
    if (!stored) return value;
    return py::cast(stored->item<T>());
}

// serializer(key, value) at once: Chainer's Serializer.__call__ / Deserializer.__call__. Arrays
// updated in place (numpy arrays, ndarrays, Variables) are queued on the backend, or assigned
// now with `in_place_now` (a key first read in a commit pass, when the queue is running).
py::object call_now(const Serializer& s, const std::string& key, const py::object& value, bool in_place_now) {
    if (value.is_none()) {
        if (!s.is_loading()) {
            s(key, Array{}, [](const Array&) {});
            return value;
        }
        const std::optional<Array> stored = load_now(s, key, Dtype::kFloat64, std::nullopt);
        return stored ? to_numpy(*stored) : py::object(py::none());
    }
    if (PyBool_Check(value.ptr())) return scalar_call<bool>(s, key, value, Dtype::kBool);
    if (PyLong_Check(value.ptr())) return scalar_call<int64_t>(s, key, value, Dtype::kInt64);
    if (PyFloat_Check(value.ptr())) return scalar_call<double>(s, key, value, Dtype::kFloat64);
    if (PyUnicode_Check(value.ptr())) {
        std::string text = value.cast<std::string>();
        if (!s.is_loading()) {
            s(key, text);
            return value;
        }
        const std::optional<std::string> stored = s.read_string(key);
        return stored ? py::object(py::str(*stored)) : value;
    }
    const py::module_ np = py::module_::import("numpy");
    if (py::isinstance(value, np.attr("generic"))) {
        // numpy scalars come back as the same numpy type.
        const py::object item = value.attr("item")();
        return py::type::of(value)(call_now(s, key, item, in_place_now));
    }
    const bool variable = is_instance_of_bound(value, typeid(Variable));
    const Array array = variable ? value.cast<const Variable&>().array() : to_array(value);
    const bool aliased = variable || py::isinstance<py::array>(value) || is_instance_of_bound(value, typeid(Array));
    if (s.is_loading() && aliased && in_place_now) {
        const std::optional<Array> stored = load_now(s, key, array.dtype(), array.shape());
        if (stored) array.assign(stored->to_device(array.device()));
        return value;
    }
    if (!s.is_loading() || aliased) {
        s(key, array);  // loading: copied into the array's memory once the walk passed (Chainer's param.data)
        return value;
    }
    const std::optional<Array> stored = load_now(s, key, array.dtype(), array.shape());
    return stored ? to_numpy(stored->astype(array.dtype())) : value;
}

// serializer(key, value): at once when saving or outside a load_npz walk, else the pass of
// Note [Python loads in two passes] that is running.
py::object serializer_call(const Serializer& s, const std::string& key, const py::object& value) {
    if (!s.is_loading()) return call_now(s, key, value, false);
    if (auto* staging = dynamic_cast<StagingBackend*>(&s.backend())) {  // a commit pass
        if (const py::object* staged = staging->staged(s.key(key))) return *staged ? *staged : value;
        if (staging->source == nullptr) return value;  // a serializer kept past its load
        const std::shared_ptr<SerializerBackend> source{staging->source, [](SerializerBackend*) {}};
        return call_now(Serializer{source, s.prefix()}, key, value, true);
    }
    const std::shared_ptr<StagingBackend> staging = staging_of(s.backend(), false);
    if (staging == nullptr || staging->checking == 0) return call_now(s, key, value, false);
    const py::object loaded = call_now(s, key, value, false);  // checks; throws as before
    staging->stage(s.key(key), loaded.is(value) ? py::object() : loaded);
    return value;
}

// A bound method or function of C++ (pybind11), not Python code.
bool is_builtin(const py::handle& fn) {
    PyObject* f = fn.ptr();
    if (PyMethod_Check(f)) f = PyMethod_GET_FUNCTION(f);
    return PyCFunction_Check(f) != 0;
}

void serialize_object(const py::object& obj, const Serializer& s) {
    RENSA_CHECK(py::hasattr(obj, "serialize"), ValueError, "serializers: ", py::repr(obj).cast<std::string>(),
                " has no serialize(serializer) method");
    const py::object fn = obj.attr("serialize");
    if (is_builtin(fn)) {
        fn(s);  // a C++ walk: the Python objects it reaches take the two passes themselves
    } else {
        serialize_python(fn, s);
    }
}

// DictionarySerializer's backend: numpy arrays into a dict under the full keys.
class DictSaver final : public SerializerBackend {
public:
    explicit DictSaver(py::dict target) : target{std::move(target)} {}
    ~DictSaver() override {
        if (!Py_IsInitialized()) {
            (void)target.release();
            return;
        }
        py::gil_scoped_acquire gil;
        target.release().dec_ref();  // leaves the member null, so its destructor needs no GIL
    }
    DictSaver(const DictSaver&) = delete;
    DictSaver& operator=(const DictSaver&) = delete;
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array& value) override {
        py::gil_scoped_acquire gil;
        target[py::str(key)] = value.defined() ? to_numpy(value.copy()) : py::object(py::none());
    }
    void save_string(const std::string& key, const std::string& value) override {
        py::gil_scoped_acquire gil;
        target[py::str(key)] = py::module_::import("numpy").attr("array")(py::str(value));
    }
    std::optional<Array> load(const std::string& key, Dtype, const std::optional<Shape>&) override {
        RENSA_THROW(ValueError, "DictionarySerializer: cannot load '", key, "' (it saves)");
    }
    void defer(std::function<void()>) override {
        RENSA_THROW(ValueError, "DictionarySerializer: cannot load (it saves)");
    }
    py::dict target;
};

// NpzDeserializer's backend: reads a mapping of numpy arrays (numpy.load's NpzFile, a dict).
class MappingLoader final : public SerializerBackend {
public:
    MappingLoader(py::object npz, std::string path, bool strict, std::vector<std::string> ignore)
        : npz_{std::move(npz)}, path_{std::move(path)}, strict_{strict}, ignore_{std::move(ignore)} {}
    ~MappingLoader() override {
        if (!Py_IsInitialized()) {
            (void)npz_.release();  // the interpreter is gone: nothing to decref
            return;
        }
        py::gil_scoped_acquire gil;
        npz_ = py::object();
    }
    MappingLoader(const MappingLoader&) = delete;
    MappingLoader& operator=(const MappingLoader&) = delete;
    bool is_loading() const override { return true; }
    void save(const std::string& key, const Array&) override {
        RENSA_THROW(ValueError, "NpzDeserializer: cannot save '", key, "' (it loads)");
    }
    std::optional<Array> load(const std::string& key, Dtype dtype, const std::optional<Shape>& shape) override {
        py::gil_scoped_acquire gil;
        const std::optional<py::object> found = find(key);
        if (!found) return std::nullopt;
        const std::string full = path_ + key;
        if (found->is_none()) return Array{};
        const py::object arr = py::module_::import("numpy").attr("asarray")(*found);
        const std::string kind = arr.attr("dtype").attr("kind").cast<std::string>();
        if (kind == "O" && arr.attr("ndim").cast<int>() == 0 && arr.attr("item")().is_none()) return Array{};
        RENSA_CHECK(kind != "U" && kind != "O", DtypeError, "NpzDeserializer: key '", full, "' holds ",
                    py::str(arr.attr("dtype")).cast<std::string>(), ", not a numeric array");
        const Array stored = to_array(arr);
        RENSA_CHECK(serializers::can_cast_same_kind(stored.dtype(), dtype), DtypeError, "NpzDeserializer: key '", full,
                    "': cannot cast the stored ", stored.dtype(), " to the target's ", dtype,
                    " (numpy same_kind casting)");
        RENSA_CHECK(!shape || *shape == stored.shape(), DimensionError, "NpzDeserializer: key '", full,
                    "': stored shape ", stored.shape(), " does not match the target's shape ", *shape);
        return stored;
    }
    std::optional<std::string> load_string(const std::string& key) override {
        py::gil_scoped_acquire gil;
        const std::optional<py::object> found = find(key);
        if (!found) return std::nullopt;
        const py::object arr = py::module_::import("numpy").attr("asarray")(*found);
        RENSA_CHECK(arr.attr("dtype").attr("kind").cast<std::string>() == "U" && arr.attr("ndim").cast<int>() == 0,
                    DtypeError, "NpzDeserializer: key '", path_ + key, "' does not hold a string");
        return arr.attr("item")().cast<std::string>();
    }
    void defer(std::function<void()> assign) override { deferred_.push_back(std::move(assign)); }
    void commit() {
        for (const auto& assign : deferred_) assign();
        deferred_.clear();
    }
    // After a failed walk: what it queued must not run with a later load's commit.
    void discard() { deferred_.clear(); }

private:
    std::optional<py::object> find(const std::string& key) const {
        const std::string full = path_ + key;
        for (const auto& name : ignore_) {
            if (name == full) return std::nullopt;
        }
        if (!npz_.contains(py::str(full))) {
            RENSA_CHECK(!strict_, KeyError, "NpzDeserializer: key '", full, "' is not in the file");
            return std::nullopt;
        }
        return py::object(npz_[py::str(full)]);
    }

    py::object npz_;
    std::string path_;
    bool strict_;
    std::vector<std::string> ignore_;
    std::vector<std::function<void()>> deferred_;
};

struct DictionarySerializer : Serializer {
    DictionarySerializer(std::shared_ptr<DictSaver> b, std::string prefix)
        : Serializer{b, std::move(prefix)}, saver{std::move(b)} {}
    std::shared_ptr<DictSaver> saver;
};

struct NpzDeserializer : Serializer {
    explicit NpzDeserializer(std::shared_ptr<MappingLoader> b) : Serializer{b}, loader{std::move(b)} {}
    std::shared_ptr<MappingLoader> loader;
};

std::vector<std::string> to_names(const py::object& names) {
    if (names.is_none()) return {};
    if (py::isinstance<py::str>(names)) return {names.cast<std::string>()};
    RENSA_CHECK(!PyCallable_Check(names.ptr()), NotImplementedError,
                "load_npz: ignore_names as a callable is not supported; pass the list of keys");
    return names.cast<std::vector<std::string>>();
}

bool is_path(const py::object& file) { return py::isinstance<py::str>(file) || py::hasattr(file, "__fspath__"); }

void save_npz(const py::object& file, const py::object& obj, bool compression) {
    const auto saver = std::make_shared<NpzSaver>();
    serialize_object(obj, Serializer{saver});
    const SaveNpzOptions options{compression};
    if (is_path(file)) {
        const auto path = py::module_::import("os").attr("fspath")(file).cast<std::string>();
        py::gil_scoped_release release;
        saver->write(path, options);
        return;
    }
    RENSA_CHECK(py::hasattr(file, "write"), ValueError, "save_npz: file must be a path or a writable file object, got ",
                py::repr(file).cast<std::string>());
    // File objects: written to a temporary file first (the writer works on paths).
    const py::module_ os = py::module_::import("os");
    const py::tuple fd_path = py::module_::import("tempfile").attr("mkstemp")(py::arg("suffix") = ".npz");
    os.attr("close")(fd_path[0]);
    const auto path = fd_path[1].cast<std::string>();
    try {
        saver->write(path, options);
        const py::object f = py::module_::import("builtins").attr("open")(path, "rb");
        const py::object bytes = f.attr("read")();
        f.attr("close")();
        file.attr("write")(bytes);
    } catch (...) {
        os.attr("remove")(path);
        throw;
    }
    os.attr("remove")(path);
}

void load_npz(const py::object& file, const py::object& obj, const std::string& path, bool strict,
              const py::object& ignore_names) {
    LoadNpzOptions options{path, strict, to_names(ignore_names)};
    std::shared_ptr<NpzLoader> loader;
    py::bytes data;  // outlives the loader's use of the bytes
    if (is_path(file)) {
        const auto name = py::module_::import("os").attr("fspath")(file).cast<std::string>();
        py::gil_scoped_release release;
        loader = NpzLoader::open_file(name, std::move(options));
    } else {
        RENSA_CHECK(py::hasattr(file, "read"), ValueError,
                    "load_npz: file must be a path or a readable file object, got ",
                    py::repr(file).cast<std::string>());
        data = file.attr("read")();
        loader = NpzLoader::open_memory(std::string_view{data}, std::move(options));
    }
    serialize_object(obj, Serializer{loader});
    loader->commit();
}

}  // namespace

void serialize_python(const py::object& serialize, const Serializer& serializer) {
    if (!serializer.is_loading() || dynamic_cast<StagingBackend*>(&serializer.backend()) != nullptr) {
        serialize(serializer);  // a save, or inside a commit pass
        return;
    }
    SerializerBackend& backend = serializer.backend();
    const std::shared_ptr<StagingBackend> staging = staging_of(backend, true);
    if (staging->checking > 0) {
        serialize(serializer);  // inside another check pass, whose commit pass comes back here
        return;
    }
    ++staging->checking;
    try {
        serialize(serializer);
    } catch (...) {
        --staging->checking;
        throw;
    }
    --staging->checking;
    backend.defer([staging, fn = shared_object(serialize), prefix = serializer.prefix(), source = &backend] {
        py::gil_scoped_acquire gil;
        staging->source = source;
        const Serializer commit{staging, prefix};
        try {
            (*fn)(commit);
        } catch (...) {
            staging->source = nullptr;
            throw;
        }
        staging->source = nullptr;
    });
}

void bind_serializers(py::module_& m) {
    using py::arg;
    py::module_ sm = m.def_submodule("serializers", "chainer.serializers");
    py::class_<Serializer>(
        sm, "Serializer",
        "The serializer an object's ``serialize(serializer)`` receives (chainer.serializer's "
        "Serializer and Deserializer in one): ``x = serializer('key', x)`` saves or loads one value, "
        "``serializer['child']`` gives the serializer of a child.")
        .def("__call__", &serializer_call, arg("key"), arg("value"),
             "Saves ``value`` under ``key``, or loads it: returns the value to assign (``x = serializer('key', x)``).")
        .def(
            "__getitem__", [](const Serializer& s, const std::string& name) { return s[name]; },
            "The serializer of the child ``name`` (keys under ``name/``).")
        .def_property_readonly("is_loading", &Serializer::is_loading, "Whether the serializer loads (else it saves).")
        .def_property_readonly(
            "path", [](const Serializer& s) { return s.prefix(); }, "The key prefix of this serializer.")
        .def(
            "save", [](const Serializer& s, const py::object& obj) { serialize_object(obj, s); }, arg("obj"),
            "Walks ``obj.serialize`` with this serializer (saves ``obj`` when saving).");

    py::class_<DictionarySerializer, Serializer>(
        sm, "DictionarySerializer",
        R"doc(A serializer that saves into a dict (chainer.serializers.DictionarySerializer): each value goes to
``target`` as a numpy array under its full key (``predictor/l1/W``).

Args:
    target (dict): the dict to fill (a new one when None).
    path (str): the prefix of the keys.)doc")
        .def(py::init([](const py::object& target, const std::string& path) {
                 py::dict dict = target.is_none() ? py::dict() : py::reinterpret_borrow<py::dict>(target);
                 return DictionarySerializer{std::make_shared<DictSaver>(dict), "/" + path};
             }),
             arg("target") = py::none(), arg("path") = "")
        .def_property_readonly(
            "target", [](const DictionarySerializer& s) { return s.saver->target; },
            "The dict the values are saved into.")
        .def("__getitem__", [](const DictionarySerializer& s, const std::string& name) {
            return DictionarySerializer{s.saver, s[name].prefix()};
        });

    py::class_<NpzDeserializer, Serializer>(
        sm, "NpzDeserializer",
        R"doc(A deserializer that loads from a mapping of arrays (chainer.serializers.NpzDeserializer): a
``numpy.load`` result of an ``.npz`` file, or a dict such as a DictionarySerializer's ``target``.

Args:
    npz: the mapping of keys to arrays.
    path (str): the prefix of the keys to read (``updater/model:main/``, say).
    strict (bool): a key missing from ``npz`` raises KeyError; False leaves its value as it is.
    ignore_names: a list of keys (with the prefix) not to load. Chainer's callable form is not
        supported (NotImplementedError).)doc")
        .def(py::init([](const py::object& npz, const std::string& path, bool strict, const py::object& ignore_names) {
                 return NpzDeserializer{std::make_shared<MappingLoader>(npz, path, strict, to_names(ignore_names))};
             }),
             arg("npz"), arg("path") = "", arg("strict") = true, arg("ignore_names") = py::none())
        .def(
            "load",
            [](const NpzDeserializer& s, const py::object& obj) {
                try {
                    serialize_object(obj, s);
                } catch (...) {
                    s.loader->discard();
                    throw;
                }
                s.loader->commit();
            },
            arg("obj"),
            "Loads the state of ``obj`` (anything with ``serialize(serializer)``) from the mapping: all or nothing, "
            "every value is checked before any is assigned, so on an error ``obj`` is unchanged.");

    sm.def("save_npz", &save_npz, arg("file"), arg("obj"), arg("compression") = true,
           R"doc(Saves an object to an ``.npz`` file (chainer.serializers.save_npz).

Args:
    file: a path, or a writable binary file object.
    obj: the object to save: anything with ``serialize(serializer)`` (a Link, an Optimizer, a
        Trainer, ...). The keys are Chainer's (``predictor/l1/W``).
    compression (bool): compress the archive's members.)doc");
    sm.def("load_npz", &load_npz, arg("file"), arg("obj"), arg("path") = "", arg("strict") = true,
           arg("ignore_names") = py::none(),
           R"doc(Loads an object from an ``.npz`` file (chainer.serializers.load_npz).

Loading is all or nothing: every value is checked (KeyError for a missing key, DimensionError or
DtypeError for a mismatch) before any is assigned, so on an error ``obj`` is unchanged.

Args:
    file: a path, or a readable binary file object.
    obj: the object to load into (anything with ``serialize(serializer)``).
    path (str): the prefix of the keys to read (``updater/model:main/`` loads a model from a
        trainer snapshot).
    strict (bool): a key missing from the file raises KeyError; False leaves its value as it is.
    ignore_names: a list of keys (with the prefix) not to load. Chainer's callable form is not
        supported (NotImplementedError).)doc");
}

}  // namespace rensa::python
