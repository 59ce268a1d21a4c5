#pragma once
// Chainer's save_npz / load_npz: a numpy `.npz` (zip of `<key>.npy` members) written and
// read through the Serializer visitor. Keys are the serializer keys without the leading
// '/' ("predictor/l1/W", "updater/optimizer:main/predictor/l1/W/m"); scalars are 0-d
// int64 / float64 / bool arrays; an undefined array is stored as Chainer stores None, a
// pickled 0-d object array holding None (the only pickle rensa reads; it is matched byte
// for byte, never unpickled). bfloat16 is written with descr '<V2' (numpy has no
// bfloat16; numpy.load gives raw 2-byte voids) and read back as bfloat16.
//
//   save_npz("model.npz", model);                               // deflated, like Chainer
//   load_npz("model.npz", model, {.strict = false});
//   load_npz("snapshot", model, {.path = "updater/model:main/"});

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "serializers/serializer.h"

namespace rensa::serializers {

struct SaveNpzOptions {
    bool compression = true;  // deflate (numpy.savez_compressed) or store (numpy.savez)
};

struct LoadNpzOptions {
    std::string path = "";                       // prefix of every key in the file ("updater/model:main/")
    bool strict = true;                          // false: keys absent from the file leave their values as they are
    std::vector<std::string> ignore_names = {};  // full keys (with `path`) that are not loaded
};

class NpzReader;
class NpyMemberReader;

// Saving backend: keeps the members (npy bytes) in serialize order until write().
class NpzSaver final : public SerializerBackend {
public:
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array& value) override;
    std::optional<Array> load(const std::string& key, Dtype dtype, const std::optional<Shape>& shape) override;
    void defer(std::function<void()> assign) override;
    // Stores a 0-d '<U<n>' member, as numpy.savez does for a Python str; ValueError for
    // text that is not valid UTF-8.
    void save_string(const std::string& key, const std::string& value) override;
    // Writes the archive atomically (see zipio::write_zip); throws IOError.
    void write(const std::string& path, const SaveNpzOptions& options) const;

private:
    void put(const std::string& key, std::string bytes);

    std::vector<std::pair<std::string, std::string>> members_;  // "<key>.npy", npy bytes
};

// Loading backend over an open archive: validates on load(), assigns on commit().
// See Note [All-or-nothing loading].
class NpzLoader final : public SerializerBackend {
public:
    NpzLoader(std::unique_ptr<NpzReader> reader, LoadNpzOptions options);
    ~NpzLoader() override;
    bool is_loading() const override { return true; }
    void save(const std::string& key, const Array& value) override;
    std::optional<Array> load(const std::string& key, Dtype dtype, const std::optional<Shape>& shape) override;
    void defer(std::function<void()> assign) override { deferred_.push_back(std::move(assign)); }
    // The 0-d string member under `key` as UTF-8; DtypeError for any other member (a
    // numeric array, a 1-d string array, None), IOError for invalid code points.
    std::optional<std::string> load_string(const std::string& key) override;
    // Runs the queued assignments (after the whole walk passed).
    void commit();

    static std::shared_ptr<NpzLoader> open_file(const std::string& path, LoadNpzOptions options);
    static std::shared_ptr<NpzLoader> open_memory(std::string_view bytes, LoadNpzOptions options);

private:
    // The member under `key` (with options.path), its header read and its data not yet, or
    // nullopt when it is ignored or absent and strict=false; KeyError when absent and strict.
    std::optional<NpyMemberReader> open_member(const std::string& full, const std::string& what) const;

    std::unique_ptr<NpzReader> reader_;
    LoadNpzOptions options_;
    std::vector<std::function<void()>> deferred_;
};

// numpy's casting='same_kind' (bool < unsigned < signed < float): can `from` go into `to`?
bool can_cast_same_kind(Dtype from, Dtype to);

// Saves every value `obj.serialize` visits to `path`; throws IOError (the target is left
// as it was), ValueError for an undefined array passed without an assign callback.
template <class T>
void save_npz(const std::string& path, T& obj, const SaveNpzOptions& options = {}) {
    const auto saver = std::make_shared<NpzSaver>();
    obj.serialize(Serializer{saver});
    saver->write(path, options);
}

// Loads `obj` from `path`: all or nothing. Throws KeyError (missing key), DimensionError
// (shape), DtypeError (dtype not same_kind castable, unsupported descr) or IOError
// (unreadable, malformed, oversized, pickled), naming the file and the key; on any error
// nothing in `obj` has changed.
template <class T>
void load_npz(const std::string& path, T& obj, const LoadNpzOptions& options = {}) {
    const auto loader = NpzLoader::open_file(path, options);
    obj.serialize(Serializer{loader});
    loader->commit();
}

// load_npz from an archive held in memory (named "<memory>" in messages).
template <class T>
void load_npz_from_memory(std::string_view bytes, T& obj, const LoadNpzOptions& options = {}) {
    const auto loader = NpzLoader::open_memory(bytes, options);
    obj.serialize(Serializer{loader});
    loader->commit();
}

}  // namespace rensa::serializers
