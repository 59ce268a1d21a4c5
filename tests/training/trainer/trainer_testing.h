#pragma once
// Helpers of the trainer and trigger tests, beyond the shared ones of training_testing.h:
// the keys an object saves, and an extension that records when it runs.

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "serializers/serializer.h"
#include "tests/training/training_testing.h"
#include "training/extension.h"
#include "training/trainer.h"

namespace rensa::testing {

// A saving backend that records the full key of every saved entry.
class KeyRecorder final : public serializers::SerializerBackend {
public:
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array&) override { keys.insert(key); }
    void save_string(const std::string& key, const std::string&) override { keys.insert(key); }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return std::nullopt; }
    void defer(std::function<void()>) override {}
    std::set<std::string> keys;
};

// The keys `obj.serialize` saves.
template <class T>
std::set<std::string> saved_keys(T& obj) {
    auto backend = std::make_shared<KeyRecorder>();
    obj.serialize(serializers::Serializer{backend});
    return backend->keys;
}

// Records the iteration of each call (and of initialize/finalize/on_error as events).
class RecordingExtension : public training::Extension {
public:
    explicit RecordingExtension(std::string name, std::vector<std::string>* events = nullptr, int priority = 100)
        : name_{std::move(name)}, events_{events}, priority_{priority} {}
    void operator()(training::Trainer& trainer) override {
        calls.push_back(trainer.updater().iteration());
        log("call");
    }
    std::string default_name() const override { return name_; }
    int priority() const override { return priority_; }
    void initialize(training::Trainer&) override { log("initialize"); }
    void on_error(training::Trainer&, const std::exception& error) override {
        log(std::string("on_error:") + error.what());
    }
    void finalize() override { log("finalize"); }

    std::vector<int64_t> calls;

private:
    void log(const std::string& what) {
        if (events_ != nullptr) events_->push_back(name_ + ":" + what);
    }
    std::string name_;
    std::vector<std::string>* events_;
    int priority_;
};

// The iterations at which `trigger` fires over `iterations` updates of a tiny setup
// with n examples and the given batch size (the trigger runs as an extension's trigger).
inline std::vector<int64_t> firing_iterations(training::TriggerArg trigger, int64_t iterations, int64_t n,
                                              int64_t batch_size) {
    TinySetup s = tiny_setup(n, batch_size);
    const TempDir out{"firing"};
    training::Trainer trainer{s.updater, {iterations, "iteration"}, out.str()};
    auto recorder = std::make_shared<RecordingExtension>("rec");
    trainer.extend(recorder, {.trigger = std::move(trigger)});
    trainer.run();
    return recorder->calls;
}

}  // namespace rensa::testing
