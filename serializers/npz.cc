#include "serializers/npz.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/error.h"
#include "serializers/npy.h"
#include "serializers/npz_reader.h"
#include "serializers/zip.h"

namespace rensa::serializers {
namespace {

// npy_descr() spells the host's order as '<'.
static_assert(std::endian::native == std::endian::little, "npz: writing assumes a little-endian host");

std::string npy_bytes(const Array& value) {
    if (!value.defined()) return npy::none_member();  // Chainer's None
    const Array host = value.to_device(Device::native()).as_contiguous();
    const std::vector<int64_t> shape(host.shape().begin(), host.shape().end());
    std::string bytes = npy::format_header(npy_descr(host.dtype()), false, shape);
    const size_t header = bytes.size();
    bytes.resize(header + static_cast<size_t>(host.nbytes()));
    if (host.nbytes() > 0) std::memcpy(bytes.data() + header, host.raw_data(), static_cast<size_t>(host.nbytes()));
    return bytes;
}

Dtype dtype_of_descr(const npy::Descr& d, const std::string& what) {
    const int64_t n = d.itemsize;
    switch (d.kind) {
        case 'b':
            return Dtype::kBool;
        case 'i':
            if (n == 1) return Dtype::kInt8;
            if (n == 4) return Dtype::kInt32;
            if (n == 8) return Dtype::kInt64;
            break;
        case 'u':
            if (n == 1) return Dtype::kUInt8;
            break;
        case 'f':
            if (n == 2) return Dtype::kFloat16;
            if (n == 4) return Dtype::kFloat32;
            if (n == 8) return Dtype::kFloat64;
            break;
        case 'V':
            if (n == 2) return Dtype::kBFloat16;
            break;
    }
    RENSA_THROW(DtypeError, "load_npz: ", what, ": unsupported descr '", d.text, "'");
}

int kind_rank(Dtype d) {
    if (d == Dtype::kBool) return 0;
    if (is_float(d)) return 3;
    return is_signed(d) ? 2 : 1;
}

}  // namespace

bool can_cast_same_kind(Dtype from, Dtype to) { return kind_rank(from) <= kind_rank(to); }

void NpzSaver::save(const std::string& key, const Array& value) { put(key, npy_bytes(value)); }

void NpzSaver::save_string(const std::string& key, const std::string& value) {
    put(key, npy::string_member(value, "save_npz: key '" + key + "'"));
}

void NpzSaver::put(const std::string& key, std::string bytes) {
    std::string name = key + ".npy";
    const auto it = std::find_if(members_.begin(), members_.end(), [&](const auto& m) { return m.first == name; });
    if (it != members_.end()) {
        it->second = std::move(bytes);  // a dict keeps the last value, like Chainer's DictionarySerializer
    } else {
        members_.emplace_back(std::move(name), std::move(bytes));
    }
}

std::optional<Array> NpzSaver::load(const std::string& key, Dtype, const std::optional<Shape>&) {
    RENSA_THROW(ValueError, "save_npz: load('", key, "') called on a saving serializer");
}

void NpzSaver::defer(std::function<void()>) { RENSA_THROW(ValueError, "save_npz: defer() on a saving serializer"); }

void NpzSaver::write(const std::string& path, const SaveNpzOptions& options) const {
    zipio::write_zip(path, members_, options.compression);
}

NpzLoader::NpzLoader(std::unique_ptr<NpzReader> reader, LoadNpzOptions options)
    : reader_{std::move(reader)}, options_{std::move(options)} {}

NpzLoader::~NpzLoader() = default;

std::shared_ptr<NpzLoader> NpzLoader::open_file(const std::string& path, LoadNpzOptions options) {
    return std::make_shared<NpzLoader>(std::make_unique<NpzReader>(NpzReader::open_file(path)), std::move(options));
}

std::shared_ptr<NpzLoader> NpzLoader::open_memory(std::string_view bytes, LoadNpzOptions options) {
    return std::make_shared<NpzLoader>(std::make_unique<NpzReader>(NpzReader::open_memory(bytes)), std::move(options));
}

void NpzLoader::save(const std::string& key, const Array&) {
    RENSA_THROW(ValueError, "load_npz: save('", key, "') called on a loading serializer");
}

std::optional<NpyMemberReader> NpzLoader::open_member(const std::string& full, const std::string& what) const {
    const auto& ignored = options_.ignore_names;
    if (std::find(ignored.begin(), ignored.end(), full) != ignored.end()) return std::nullopt;
    if (!reader_->contains(full)) {
        RENSA_CHECK(!options_.strict, KeyError, "load_npz: ", what, " is not in the file");
        return std::nullopt;
    }
    return reader_->open(full);
}

// The header is checked against the target before any data is read, and the data inflates
// straight into the array returned: a member costs its stored bytes and a bounded buffer.
std::optional<Array> NpzLoader::load(const std::string& key, Dtype dtype, const std::optional<Shape>& shape) {
    const std::string full = options_.path + key;
    const std::string what = "'" + reader_->name() + "': key '" + full + "'";
    std::optional<NpyMemberReader> member = open_member(full, what);
    if (!member) return std::nullopt;
    if (member->is_none()) return Array{};  // Chainer's None: "not initialised"
    const npy::Header& header = member->header();
    RENSA_CHECK(header.descr.kind != 'U', DtypeError, "load_npz: ", what, " holds a string ('", header.descr.text,
                "'), not an array");
    const Dtype stored = dtype_of_descr(header.descr, what);
    RENSA_CHECK(can_cast_same_kind(stored, dtype), DtypeError, "load_npz: ", what, ": cannot cast the stored ", stored,
                " to the target's ", dtype, " (numpy same_kind casting)");
    const std::vector<int64_t>& dims = header.shape;
    RENSA_CHECK(dims.size() <= static_cast<size_t>(kMaxNdim), DimensionError, "load_npz: ", what, ": ", dims.size(),
                " dimensions, rensa supports at most ", kMaxNdim);
    const Shape stored_shape(dims.begin(), dims.end());
    RENSA_CHECK(!shape || *shape == stored_shape, DimensionError, "load_npz: ", what, ": stored shape ", stored_shape,
                " does not match the target's shape ", *shape);
    const Array out = Array::empty(stored_shape, stored, Device::native());
    member->read_into(static_cast<char*>(out.raw_data()));
    return out;
}

std::optional<std::string> NpzLoader::load_string(const std::string& key) {
    const std::string full = options_.path + key;
    const std::string what = "'" + reader_->name() + "': key '" + full + "'";
    std::optional<NpyMemberReader> member = open_member(full, what);
    if (!member) return std::nullopt;
    const npy::Header& h = member->header();
    RENSA_CHECK(!member->is_none() && h.descr.kind == 'U' && h.shape.empty(), DtypeError, "load_npz: ", what,
                ": expected a string (a 0-d unicode array, descr '<U<n>'), found ",
                member->is_none()
                    ? std::string{"None"}
                    : "descr '" + h.descr.text + "' of " + std::to_string(h.shape.size()) + " dimensions");
    std::vector<char> data(static_cast<size_t>(h.data_bytes()));
    member->read_into(data.data());
    return npy::decode_string(h, data, what);
}

void NpzLoader::commit() {
    for (const auto& assign : deferred_) assign();
    deferred_.clear();
}

}  // namespace rensa::serializers
