#pragma once
// chainer.training.Trainer: runs the updater until the stop trigger fires, calling the
// extensions whose triggers fire after each iteration.
//
//   auto updater = std::make_shared<updaters::StandardUpdater>(train_iter, optimizer);
//   Trainer trainer{updater, {20, "epoch"}, "result"};
//   trainer.extend(std::make_shared<extensions::Evaluator>(test_iter, model));
//   trainer.extend(std::make_shared<extensions::LogReport>());
//   trainer.run();
//
// Note [Trainer loop]: run() sorts the extensions by priority (higher first, ties in
// the order added), calls initialize on each whose trigger is not finished(), then, only
// when is_before_training() (iteration 0, as Chainer's Trainer.run), the
// call_before_training ones (in a reporter scope): a run resumed from a snapshot does not
// call them again, or an Evaluator would evaluate at the resume point and LogReport would
// fold that result into the next epoch's entry. Then, until the stop trigger fires
// (checked before each update): opens a fresh observation as the reporter's scope,
// calls updater.update(), and calls each extension whose trigger fires. finalize runs on
// every extension and the updater however the loop ends; an exception is first passed
// to each extension's on_error, then rethrown.

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/reporter.h"
#include "serializers/serializer.h"
#include "training/extension.h"
#include "training/trigger.h"
#include "training/updater.h"

namespace rensa::training {

struct ExtendOptions {
    std::string name = "";                       // empty: extension->default_name()
    TriggerArg trigger = {};                     // empty: extension->default_trigger()
    std::optional<int> priority = std::nullopt;  // nullopt: extension->priority()
    bool call_before_training = false;           // also call it once before the first update (not on resume)
};

class Trainer {
public:
    // `stop_trigger` empty: never stops by itself (an extension must throw or the
    // process end). `out`: the folder extensions write to (created by run()).
    explicit Trainer(UpdaterPtr updater, TriggerArg stop_trigger = {}, std::string out = "result");
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    // Registers an extension. A name already taken gets "_1", "_2", ... appended as in
    // Chainer. ValueError for a null extension, an empty name, the name "training", and
    // when called during or after run().
    void extend(ExtensionPtr extension, ExtendOptions options = {});
    // The extension registered as `name`; KeyError naming the names present.
    Extension& get_extension(const std::string& name) const;
    template <class T>
    T& get_extension(const std::string& name) const;
    // The registered extensions, in registration order (copies of the Trainer's pointers).
    std::vector<ExtensionPtr> extensions() const;

    // The loop of Note [Trainer loop]. Throws what the updater or an extension threw (or,
    // after a clean loop, the first error of a finalize). ValueError when called twice.
    void run();

    Updater& updater() const { return *updater_; }
    const UpdaterPtr& updater_ptr() const { return updater_; }
    const std::string& out() const { return out_; }
    // Never null: a trigger that never fires when the constructor got none.
    const TriggerPtr& stop_trigger() const { return stop_trigger_; }
    // True before the first update (Chainer's is_before_training).
    bool is_before_training() const { return updater_->iteration() == 0; }
    // Seconds since run() began, plus the time recorded in a loaded snapshot (frozen when
    // run() ends; before run() only the loaded time).
    double elapsed_time() const;
    // The reporter of the loop: each optimizer's target is an observer under the
    // optimizer's name ("main"), its child links under "main/<path>".
    Reporter& reporter() { return reporter_; }
    // What was reported during the current iteration.
    Observation observation;

    // As Chainer: "updater/...", "stop_trigger/...", "extensions/<name>/...",
    // "extension_triggers/<name>/...", and "_snapshot_elapsed_time".
    void serialize(const serializers::Serializer& serializer);

private:
    struct Entry {
        std::string name;
        ExtensionPtr extension;
        TriggerPtr trigger;
        int priority;
        bool call_before_training;
    };
    const Entry* find_entry(const std::string& name) const;
    std::vector<const Entry*> sorted_entries() const;
    void before_training(const std::vector<const Entry*>& order);
    void call_on_error(const Entry& entry, const std::exception& error);
    void finish(const std::vector<const Entry*>& order, bool loop_failed);

    UpdaterPtr updater_;
    TriggerPtr stop_trigger_;
    std::string out_;
    Reporter reporter_;
    std::vector<Entry> extensions_;
    bool running_ = false;
    bool done_ = false;
    std::optional<double> final_elapsed_;
    double snapshot_elapsed_ = 0.0;
    std::optional<std::chrono::steady_clock::time_point> start_;
};

template <class T>
T& Trainer::get_extension(const std::string& name) const {
    auto* typed = dynamic_cast<T*>(&get_extension(name));
    RENSA_CHECK(typed != nullptr, ValueError, "Trainer.get_extension: '", name, "' is not of the requested type");
    return *typed;
}

}  // namespace rensa::training
