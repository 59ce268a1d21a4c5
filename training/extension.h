#pragma once
// chainer.training.Extension: something the Trainer calls when its trigger fires.

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "serializers/serializer.h"
#include "training/trigger.h"

namespace rensa::training {

class Trainer;

// Chainer's priorities: writers (Evaluator) run before editors, editors before readers
// (LogReport, PrintReport), higher first.
inline constexpr int kPriorityWriter = 300;
inline constexpr int kPriorityEditor = 200;
inline constexpr int kPriorityReader = 100;

class Extension {
public:
    virtual ~Extension() = default;
    // One call of the extension.
    virtual void operator()(Trainer& trainer) = 0;
    // The name extend() uses when none is given (Chainer: the class name, "validation"
    // for Evaluator, ...).
    virtual std::string default_name() const = 0;
    // Used when extend() gets no trigger; Chainer's default is {1, "iteration"}.
    virtual TriggerArg default_trigger() const { return {1, "iteration"}; }
    virtual int priority() const { return kPriorityReader; }
    // Called once before the training loop (after a resume's load_npz, so state loaded
    // from a snapshot is visible).
    virtual void initialize(Trainer& trainer) { (void)trainer; }
    // Called when the training loop throws, before the exception leaves Trainer::run.
    virtual void on_error(Trainer& trainer, const std::exception& error) {
        (void)trainer;
        (void)error;
    }
    // Called once when the training loop ends (normally or by an exception).
    virtual void finalize() {}
    virtual void serialize(const serializers::Serializer& serializer) { (void)serializer; }

    // The name Trainer::extend registered the extension under (Chainer's extension.name,
    // "_1"... suffix included); default_name() until then. Evaluator prefixes its keys with it.
    std::string name() const { return name_.empty() ? default_name() : name_; }
    void set_name(std::string name) { name_ = std::move(name); }

private:
    std::string name_;
};

using ExtensionPtr = std::shared_ptr<Extension>;

struct MakeExtensionOptions {
    std::string name = "";    // default_name(); required (ValueError when empty)
    TriggerArg trigger = {};  // empty: {1, "iteration"}
    int priority = kPriorityReader;
    std::function<void(Trainer&)> initializer = nullptr;
    std::function<void()> finalizer = nullptr;
};

// chainer.training.make_extension: an Extension from a function.
//   trainer.extend(make_extension([](Trainer& t) { ... }, {.name = "hello", .trigger = {1, "epoch"}}));
[[nodiscard]] ExtensionPtr make_extension(std::function<void(Trainer&)> fn, MakeExtensionOptions options);

}  // namespace rensa::training
