#pragma once
// The serialize visitor (Chainer's Serializer/Deserializer in one type). Every
// Link, Optimizer, UpdateRule (and later Trainer, Iterator, Extension) has one
//   void serialize(const serializers::Serializer& s);
// that both saves and loads:
//   s("t", t_);                    // scalars by reference
//   s("W", W_array);               // arrays: saved, or loaded into the array in place
//   child.serialize(s["child"]);   // children under "child/"
//
// Note [All-or-nothing loading]: a load never assigns while it walks. Each call
// checks the stored value against the target (key present, dtype castable, shape
// equal: no broadcast) and queues the assignment; the entry point (load_npz) runs the
// queue only after the whole walk passed. A missing key, a bad shape or a hostile file
// therefore raises one error and changes nothing.
//
// A Serializer is a cheap handle: a shared backend plus this node's key prefix.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/array.h"

namespace rensa::serializers {

// What a save or load stores into or reads from (an NPZ file, a dictionary in memory).
class SerializerBackend {
public:
    virtual ~SerializerBackend() = default;
    virtual bool is_loading() const = 0;

    // Saving: records `value` (a copy of its current contents) under the full key.
    virtual void save(const std::string& key, const Array& value) = 0;

    // Loading: the stored array under `key`, checked against the target: castable to
    // `dtype` (same kind rules as numpy.copyto with casting='same_kind', plus bool) and,
    // when `shape` is given, of exactly that shape. Returns nullopt when the key is absent
    // and absent keys are allowed (strict=false) or ignored by name; throws KeyError
    // (missing), DimensionError (shape) or DtypeError (dtype) naming the file and the key.
    virtual std::optional<Array> load(const std::string& key, Dtype dtype, const std::optional<Shape>& shape) = 0;

    // Loading: runs `assign` once the whole walk passed (See Note [All-or-nothing loading]).
    virtual void defer(std::function<void()> assign) = 0;

    // Strings (Chainer stores json.dumps(...) text, e.g. LogReport's log): saved as a 0-d
    // numpy unicode array ('<U<n>', UTF-32), what numpy.savez writes for a Python str.
    // The defaults throw NotImplementedError naming the key (backends without strings).
    virtual void save_string(const std::string& key, const std::string& value);
    // Loading: the stored string as UTF-8 (a 0-d '<U'/'>U' array; DtypeError for any other
    // member), or nullopt under the same rules as load().
    virtual std::optional<std::string> load_string(const std::string& key);
};

class Serializer {
public:
    explicit Serializer(std::shared_ptr<SerializerBackend> backend, std::string prefix = "/");

    bool is_loading() const { return backend_->is_loading(); }
    // This node's path, "/" for the root, "/predictor/l1/" for a child of a child.
    const std::string& prefix() const { return prefix_; }
    // The full key of `key` under this node, as written in the file ("predictor/l1/W").
    std::string key(std::string_view key) const;

    // The serializer of the child `name` (keys under "<prefix><name>/").
    [[nodiscard]] Serializer operator[](std::string_view name) const;

    // Arrays. Saving stores the contents. Loading copies the stored array into `value`'s
    // storage in place (so every alias sees it), cast to value's dtype, after the walk.
    // `value` must be defined; see the overload below for lazily initialised targets.
    void operator()(std::string_view key, const Array& value) const;
    // Arrays that may be undefined (an uninitialised Parameter, a state not created yet).
    // Saving an undefined value stores Chainer's marker for None (see npz.h). Loading:
    // when `value` is defined this is the in-place overload; otherwise `assign` receives
    // the stored array (a new array, float dtype as stored) after the walk, and a stored
    // None leaves it undefined.
    void operator()(std::string_view key, const Array& value, std::function<void(const Array&)> assign) const;

    // Scalars, stored as 0-d arrays (int64, float64, bool) like numpy does for Python values.
    void operator()(std::string_view key, int64_t& value) const;
    void operator()(std::string_view key, int& value) const;
    void operator()(std::string_view key, double& value) const;
    void operator()(std::string_view key, float& value) const;
    void operator()(std::string_view key, bool& value) const;
    // Strings, stored as numpy stores a Python str (see SerializerBackend::save_string);
    // loading assigns after the walk like the scalars.
    void operator()(std::string_view key, std::string& value) const;
    // Loading only (ValueError when saving): the stored string now, without assigning
    // anything, for objects whose structure depends on it (DictSummary's key list); they
    // defer their own assignment through backend().defer. nullopt when absent and allowed.
    [[nodiscard]] std::optional<std::string> read_string(std::string_view key) const;

    SerializerBackend& backend() const { return *backend_; }

private:
    std::shared_ptr<SerializerBackend> backend_;
    std::string prefix_;
};

}  // namespace rensa::serializers
