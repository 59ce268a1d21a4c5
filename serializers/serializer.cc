#include "serializers/serializer.h"

#include <limits>

#include "core/error.h"

namespace rensa::serializers {
namespace {

std::string_view strip_slashes(std::string_view s) {
    while (!s.empty() && s.front() == '/') s.remove_prefix(1);
    while (!s.empty() && s.back() == '/') s.remove_suffix(1);
    return s;
}

// Loads the 0-d array under `full` as a T and queues `*target = value`.
template <class T, class Stored>
void load_scalar(SerializerBackend& backend, const std::string& full, T* target, Dtype dtype) {
    const std::optional<Array> stored = backend.load(full, dtype, Shape{});
    if (!stored || !stored->defined()) return;  // absent (non-strict) or Chainer's None: unchanged
    const Stored value = stored->item<Stored>();
    if constexpr (std::is_same_v<T, int>) {
        RENSA_CHECK(value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max(), ValueError,
                    "load: key '", full, "': ", value, " does not fit an int");
    }
    backend.defer([target, value] { *target = static_cast<T>(value); });
}

}  // namespace

void SerializerBackend::save_string(const std::string& key, const std::string&) {
    RENSA_THROW(NotImplementedError, "serializer: this backend cannot save the string '", key, "'");
}

std::optional<std::string> SerializerBackend::load_string(const std::string& key) {
    RENSA_THROW(NotImplementedError, "serializer: this backend cannot load the string '", key, "'");
}

Serializer::Serializer(std::shared_ptr<SerializerBackend> backend, std::string prefix)
    : backend_{std::move(backend)}, prefix_{std::move(prefix)} {
    RENSA_ASSERT(backend_ != nullptr);
    if (prefix_.empty() || prefix_.front() != '/') prefix_.insert(prefix_.begin(), '/');
    if (prefix_.back() != '/') prefix_.push_back('/');
}

std::string Serializer::key(std::string_view key) const {
    std::string full = prefix_.substr(1);
    while (!key.empty() && key.front() == '/') key.remove_prefix(1);
    full += key;
    return full;
}

Serializer Serializer::operator[](std::string_view name) const {
    return Serializer{backend_, prefix_ + std::string{strip_slashes(name)} + "/"};
}

void Serializer::operator()(std::string_view key, const Array& value) const {
    const std::string full = this->key(key);
    RENSA_CHECK(value.defined(), ValueError, "serializer: array '", full,
                "' is undefined; pass an assign callback for values that may be uninitialised");
    if (!is_loading()) return backend_->save(full, value);
    check_writeable(value, detail::concat("load of '", full, "'"));  // before any assignment
    const std::optional<Array> stored = backend_->load(full, value.dtype(), value.shape());
    if (!stored || !stored->defined()) return;  // absent (non-strict) or None: Chainer leaves the value
    const Array src = stored->to_device(value.device());
    backend_->defer([value, src] { value.assign(src); });
}

void Serializer::operator()(std::string_view key, const Array& value, std::function<void(const Array&)> assign) const {
    if (value.defined()) return (*this)(key, value);
    const std::string full = this->key(key);
    if (!is_loading()) return backend_->save(full, Array{});  // Chainer's None
    // Any stored numeric dtype casts to float64: the check only refuses non-arrays.
    const std::optional<Array> stored = backend_->load(full, Dtype::kFloat64, std::nullopt);
    if (!stored || !stored->defined()) return;
    backend_->defer([assign = std::move(assign), array = *stored] { assign(array); });
}

void Serializer::operator()(std::string_view key, int64_t& value) const {
    if (!is_loading()) return backend_->save(this->key(key), Array::from_vector<int64_t>({value}, Shape{}));
    load_scalar<int64_t, int64_t>(*backend_, this->key(key), &value, Dtype::kInt64);
}

void Serializer::operator()(std::string_view key, int& value) const {
    if (!is_loading()) return backend_->save(this->key(key), Array::from_vector<int64_t>({value}, Shape{}));
    load_scalar<int, int64_t>(*backend_, this->key(key), &value, Dtype::kInt64);
}

void Serializer::operator()(std::string_view key, double& value) const {
    if (!is_loading()) return backend_->save(this->key(key), Array::from_vector<double>({value}, Shape{}));
    load_scalar<double, double>(*backend_, this->key(key), &value, Dtype::kFloat64);
}

void Serializer::operator()(std::string_view key, float& value) const {
    if (!is_loading()) return backend_->save(this->key(key), Array::from_vector<double>({value}, Shape{}));
    load_scalar<float, double>(*backend_, this->key(key), &value, Dtype::kFloat64);
}

void Serializer::operator()(std::string_view key, bool& value) const {
    if (!is_loading()) return backend_->save(this->key(key), Array::from_vector<bool>({value}, Shape{}));
    load_scalar<bool, bool>(*backend_, this->key(key), &value, Dtype::kBool);
}

void Serializer::operator()(std::string_view key, std::string& value) const {
    if (!is_loading()) return backend_->save_string(this->key(key), value);
    std::optional<std::string> stored = backend_->load_string(this->key(key));
    if (!stored) return;  // absent (non-strict) or ignored: unchanged
    backend_->defer([target = &value, text = std::move(*stored)] { *target = text; });
}

std::optional<std::string> Serializer::read_string(std::string_view key) const {
    RENSA_CHECK(is_loading(), ValueError, "serializer: read_string('", this->key(key),
                "') needs a loading serializer; save strings with operator()");
    return backend_->load_string(this->key(key));
}

}  // namespace rensa::serializers
