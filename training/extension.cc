#include "training/extension.h"

#include <utility>

#include "core/error.h"

namespace rensa::training {

namespace {

// An Extension around a function and the options of make_extension.
class LambdaExtension final : public Extension {
public:
    LambdaExtension(std::function<void(Trainer&)> fn, MakeExtensionOptions options)
        : fn_{std::move(fn)}, options_{std::move(options)} {}

    void operator()(Trainer& trainer) override { fn_(trainer); }
    std::string default_name() const override { return options_.name; }
    TriggerArg default_trigger() const override {
        return options_.trigger.empty() ? TriggerArg{1, "iteration"} : options_.trigger;
    }
    int priority() const override { return options_.priority; }
    void initialize(Trainer& trainer) override {
        if (options_.initializer) options_.initializer(trainer);
    }
    void finalize() override {
        if (options_.finalizer) options_.finalizer();
    }

private:
    std::function<void(Trainer&)> fn_;
    MakeExtensionOptions options_;
};

}  // namespace

ExtensionPtr make_extension(std::function<void(Trainer&)> fn, MakeExtensionOptions options) {
    RENSA_CHECK(fn != nullptr, ValueError, "make_extension: the function is empty");
    RENSA_CHECK(!options.name.empty(), ValueError, "make_extension: a name is required (options.name)");
    return std::make_shared<LambdaExtension>(std::move(fn), std::move(options));
}

}  // namespace rensa::training
