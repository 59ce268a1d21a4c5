#pragma once
// Test helpers for mixed_bf16 (config().dtype bfloat16 with config().mixed16 on): the config
// as a scope, and a serializer backend that records what a save stores, to read an update
// rule's float32 master ("fp32_param", Note [Float32 master weights]).

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "autograd/modes.h"
#include "core/array.h"
#include "serializers/serializer.h"

namespace rensa::testing {

// mixed_bf16 for the scope's lifetime.
struct MixedBF16Scope {
    ConfigScope<Dtype> dtype{&Config::dtype, Dtype::kBFloat16};
    ConfigScope<bool> mixed{&Config::mixed16, true};
};

// Records a copy of every array a save stores, by key.
class SaveRecorder final : public serializers::SerializerBackend {
public:
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array& value) override { saved[key] = value.copy(); }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return std::nullopt; }
    void defer(std::function<void()> assign) override { assign(); }
    std::map<std::string, Array> saved;
};

}  // namespace rensa::testing
