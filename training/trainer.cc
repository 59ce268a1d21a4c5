#include "training/trainer.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace rensa::training {

namespace {

// Chainer's _never_fire_trigger: the stop trigger when none is given.
class NeverFireTrigger final : public Trigger {
public:
    bool operator()(Trainer& trainer) override {
        (void)trainer;
        return false;
    }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Trainer::Trainer(UpdaterPtr updater, TriggerArg stop_trigger, std::string out)
    : updater_{std::move(updater)},
      stop_trigger_{stop_trigger.empty() ? std::make_shared<NeverFireTrigger>() : stop_trigger.get()},
      out_{std::move(out)} {
    RENSA_CHECK(updater_ != nullptr, ValueError, "Trainer: the updater is null");
    for (const auto& [name, optimizer] : updater_->get_all_optimizers()) {
        links::Link& target = optimizer->target();
        // The most-derived address: what a link's report(values, this) passes.
        reporter_.add_observer(name, dynamic_cast<const void*>(&target));
        std::vector<std::pair<std::string, const void*>> children;
        for (const auto& [path, link] : target.namedlinks(/*skipself=*/true)) {
            children.emplace_back(path, dynamic_cast<const void*>(link));
        }
        reporter_.add_observers(name, children);
    }
    updater_->connect_trainer(*this);
}

void Trainer::extend(ExtensionPtr extension, ExtendOptions options) {
    RENSA_CHECK(extension != nullptr, ValueError, "Trainer.extend: the extension is null");
    RENSA_CHECK(!running_ && !done_, ValueError, "Trainer.extend: cannot extend a trainer that is running or has run");
    std::string name = options.name.empty() ? extension->default_name() : options.name;
    RENSA_CHECK(!name.empty(), ValueError, "Trainer.extend: the extension has no name (give options.name)");
    RENSA_CHECK(name != "training", ValueError,
                "Trainer.extend: the name \"training\" is prohibited as an extension name");
    TriggerArg trigger = options.trigger.empty() ? extension->default_trigger() : options.trigger;
    if (trigger.empty()) trigger = TriggerArg{1, "iteration"};
    const int priority = options.priority.value_or(extension->priority());

    std::string modified = name;
    for (int ordinal = 1; find_entry(modified) != nullptr; ++ordinal) modified = name + "_" + std::to_string(ordinal);
    extension->set_name(modified);
    extensions_.push_back(Entry{.name = modified,
                                .extension = std::move(extension),
                                .trigger = trigger.get(),
                                .priority = priority,
                                .call_before_training = options.call_before_training});
}

const Trainer::Entry* Trainer::find_entry(const std::string& name) const {
    const auto it =
        std::find_if(extensions_.begin(), extensions_.end(), [&](const Entry& e) { return e.name == name; });
    return it == extensions_.end() ? nullptr : &*it;
}

std::vector<ExtensionPtr> Trainer::extensions() const {
    std::vector<ExtensionPtr> out;
    out.reserve(extensions_.size());
    for (const Entry& e : extensions_) out.push_back(e.extension);
    return out;
}

Extension& Trainer::get_extension(const std::string& name) const {
    const Entry* entry = find_entry(name);
    if (entry == nullptr) {
        std::ostringstream names;
        for (size_t i = 0; i < extensions_.size(); ++i) names << (i ? ", " : "") << "'" << extensions_[i].name << "'";
        RENSA_THROW(KeyError, "Trainer.get_extension: no extension named '", name, "' (registered: [", names.str(),
                    "])");
    }
    return *entry->extension;
}

double Trainer::elapsed_time() const {
    if (final_elapsed_) return *final_elapsed_;
    // Before run() (a save of a fresh trainer) only the loaded time counts; Chainer raises.
    return start_ ? seconds_since(*start_) + snapshot_elapsed_ : snapshot_elapsed_;
}

std::vector<const Trainer::Entry*> Trainer::sorted_entries() const {
    std::vector<const Entry*> order;
    for (const Entry& e : extensions_) order.push_back(&e);
    std::stable_sort(order.begin(), order.end(),
                     [](const Entry* a, const Entry* b) { return a->priority > b->priority; });
    return order;
}

void Trainer::run() {
    RENSA_CHECK(!running_ && !done_, ValueError, "Trainer.run: cannot run the training loop more than once");
    std::error_code failed;
    std::filesystem::create_directories(out_, failed);
    RENSA_CHECK(!failed, IOError, "Trainer.run: cannot create the output folder '", out_, "': ", failed.message());
    const std::vector<const Entry*> order = sorted_entries();
    running_ = true;
    start_ = std::chrono::steady_clock::now();
    try {
        before_training(order);
        while (!(*stop_trigger_)(*this)) {
            observation = {};
            const ReporterScope scope{reporter_, observation};
            updater_->update();
            for (const Entry* entry : order) {
                if ((*entry->trigger)(*this)) (*entry->extension)(*this);
            }
        }
    } catch (const std::exception& error) {
        std::cerr << "Exception in main training loop: " << error.what() << "\n"
                  << "Will finalize trainer extensions and updater before reraising the exception." << std::endl;
        for (const Entry* entry : order) call_on_error(*entry, error);
        finish(order, /*loop_failed=*/true);
        throw;
    } catch (...) {
        finish(order, /*loop_failed=*/true);
        throw;
    }
    finish(order, /*loop_failed=*/false);
}

void Trainer::before_training(const std::vector<const Entry*>& order) {
    for (const Entry* entry : order) {
        if (!entry->trigger->finished()) entry->extension->initialize(*this);
    }
    // See Note [Trainer loop]: a resumed run (iteration > 0) is not before training.
    if (!is_before_training()) return;
    observation = {};
    const ReporterScope scope{reporter_, observation};
    for (const Entry* entry : order) {
        if (entry->call_before_training) (*entry->extension)(*this);
    }
}

void Trainer::call_on_error(const Entry& entry, const std::exception& error) {
    // A failing handler must not hide the original exception or skip the others.
    try {
        entry.extension->on_error(*this, error);
    } catch (const std::exception& handler_error) {
        std::cerr << "Exception in error handler of '" << entry.name << "': " << handler_error.what() << std::endl;
    } catch (...) {
        std::cerr << "Exception in error handler of '" << entry.name << "'" << std::endl;
    }
}

void Trainer::finish(const std::vector<const Entry*>& order, bool loop_failed) {
    // Every finalizer runs even when one throws; the first such error is rethrown after
    // the updater's, unless an exception from the loop is already on its way.
    std::exception_ptr first;
    for (const Entry* entry : order) {
        try {
            entry->extension->finalize();
        } catch (const std::exception& error) {
            std::cerr << "Exception in finalize of '" << entry->name << "': " << error.what() << std::endl;
            if (!first) first = std::current_exception();
        } catch (...) {
            if (!first) first = std::current_exception();
        }
    }
    try {
        updater_->finalize();
    } catch (...) {
        if (!first) first = std::current_exception();
    }
    final_elapsed_ = elapsed_time();
    running_ = false;
    done_ = true;
    if (first && !loop_failed) std::rethrow_exception(first);
}

void Trainer::serialize(const serializers::Serializer& serializer) {
    updater_->serialize(serializer["updater"]);
    stop_trigger_->serialize(serializer["stop_trigger"]);
    const serializers::Serializer extensions = serializer["extensions"];
    const serializers::Serializer triggers = serializer["extension_triggers"];
    for (const Entry& entry : extensions_) {
        entry.extension->serialize(extensions[entry.name]);
        entry.trigger->serialize(triggers[entry.name]);
    }
    if (serializer.is_loading()) {
        serializer("_snapshot_elapsed_time", snapshot_elapsed_);
    } else {
        double elapsed = elapsed_time();
        serializer("_snapshot_elapsed_time", elapsed);
    }
}

}  // namespace rensa::training
