#pragma once
// chainer.training.extensions.snapshot / snapshot_object: save the trainer (or any object
// with a serialize) to `<out>/<filename>` with save_npz, by default once per epoch and
// after every other extension (priority -100).
//
//   trainer.extend(extensions::snapshot(), {.trigger = {1000, "iteration"}});
//   trainer.extend(extensions::snapshot({.n_retains = 3, .autoload = true}));
//   trainer.extend(extensions::snapshot_object(model, "model_epoch_{.updater.epoch}"));
//
// Note [Snapshot writes]: the target is serialized in memory first, then written to a
// file named "tmp<filename>XXXXXX" in the out folder (fsynced), renamed to the final name,
// and the folder fsynced. A failure at any step removes the temporary file and rethrows;
// a process killed mid-write leaves only "tmp..." files (up to three: "tmp<filename>XXXXXX",
// save_npz's "<that>.tmp-XXXXXX" and libzip's "<that>.XXXXXX"). A file under a final name
// is therefore always a complete snapshot, and the previous one stays intact. The next
// snapshot of the same writer (the same template, or the same name with filename_fn)
// removes such leftovers first: a writer writes one snapshot at a time, so a temporary of
// its own that exists when it starts is stale. (Two writers sharing a folder and a
// template would remove each other's; they would overwrite each other's snapshots anyway.)
//
// Note [Autoload order]: autoload takes the newest snapshot by the progress in its name
// (the iteration, else the epoch detail, the epoch or the elapsed time the template names;
// ties by mtime, then natural name order), not by mtime: a file copied or touched later
// is not newer training. If that file does not load (truncated, corrupt, another model),
// it falls back to the next newest that loads, saying on stderr which it skipped and why;
// loading is all or nothing, so a failed try changed nothing. When none loads, IOError
// lists them all (Chainer fails at the first).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "serializers/serializer.h"
#include "training/extension.h"

namespace rensa::training::extensions {

// Chainer's keyword arguments of snapshot / snapshot_object.
struct SnapshotOptions {
    // Python str.format template over the trainer. Fields: {.updater.iteration},
    // {.updater.epoch}, {.updater.epoch_detail}, {.elapsed_time}, with optional format specs
    // ({.updater.iteration:08d}, {.updater.epoch_detail:.2f}); '{{' and '}}' are braces.
    std::string filename = "snapshot_iter_{.updater.iteration}";
    // Chainer's callable filename: when set it replaces `filename` (n_retains and autoload
    // then do nothing, as in Chainer).
    std::function<std::string(const Trainer&)> filename_fn = nullptr;
    std::function<bool()> condition = nullptr;  // null: always snapshot when triggered
    bool snapshot_on_error = false;             // also snapshot when the training loop throws
    int64_t n_retains = -1;                     // > 0: keep only the newest n matching files (else all)
    bool autoload = false;                      // initialize() loads the newest matching file that loads
    bool compression = true;                    // save_npz's deflate
};

// What a snapshot saves and autoload loads (Chainer's target): one serialize call.
using SnapshotTarget = std::function<void(const serializers::Serializer&)>;

class Snapshot : public Extension {
public:
    // `target` null: the trainer itself. ValueError for a malformed or unknown filename
    // field or a '/' in the template.
    explicit Snapshot(SnapshotOptions options = {}, SnapshotTarget target = nullptr);

    // Takes a snapshot when the condition holds, after removing this writer's stale
    // temporary files (See Note [Snapshot writes]); then, with n_retains > 0, removes the
    // oldest matching files beyond n (oldest as in Note [Autoload order]). IOError when
    // writing fails.
    void operator()(Trainer& trainer) override;
    // With autoload: load_npz of the newest file in trainer.out() matching the template that
    // loads, into the target (See Note [Autoload order]); none there: nothing. IOError
    // listing every file and why it failed when none loads.
    void initialize(Trainer& trainer) override;
    // With snapshot_on_error: takes a snapshot; a failure is written to stderr (the
    // training error is the one that propagates).
    void on_error(Trainer& trainer, const std::exception& error) override;
    // Chainer's class name, so snapshots keep Chainer's "extension_triggers/_Snapshot" keys.
    std::string default_name() const override { return "_Snapshot"; }
    TriggerArg default_trigger() const override { return {1, "epoch"}; }
    int priority() const override { return -100; }

    // The file name the next snapshot gets for the trainer's current state.
    [[nodiscard]] std::string filename(const Trainer& trainer) const;
    const SnapshotOptions& options() const { return options_; }
    // The file the last initialize() loaded; empty when it loaded none.
    const std::filesystem::path& loaded() const { return loaded_; }

private:
    void make_snapshot(Trainer& trainer);
    void load(Trainer& trainer, const std::filesystem::path& file) const;

    SnapshotOptions options_;
    SnapshotTarget target_;
    std::filesystem::path loaded_;
};

// chainer.training.extensions.snapshot: a Snapshot of the whole trainer.
[[nodiscard]] std::shared_ptr<Snapshot> snapshot(SnapshotOptions options = {});

// chainer.training.extensions.snapshot_object: a Snapshot of `target` (any T with
// serialize(const Serializer&)) under `filename` (a template as in SnapshotOptions, which
// replaces options.filename). The extension keeps `target` alive. ValueError when null.
template <class T>
[[nodiscard]] std::shared_ptr<Snapshot> snapshot_object(std::shared_ptr<T> target, std::string filename,
                                                        SnapshotOptions options = {}) {
    RENSA_CHECK(target != nullptr, ValueError, "snapshot_object: the target is null");
    options.filename = std::move(filename);
    return std::make_shared<Snapshot>(std::move(options),
                                      [target](const serializers::Serializer& s) { target->serialize(s); });
}

namespace detail {

// The values a filename template can name (see SnapshotOptions::filename).
struct SnapshotFields {
    int64_t iteration = 0;
    int64_t epoch = 0;
    double epoch_detail = 0.0;
    double elapsed_time = 0.0;
};

// `tmpl` formatted as Python's str.format(trainer) would (floats without a spec as
// Python's repr). ValueError naming the template for an unknown field, a conversion
// ("!r"), an unsupported spec or unbalanced braces.
[[nodiscard]] std::string format_snapshot_filename(const std::string& tmpl, const SnapshotFields& fields);
// The files directly in `dir` whose names `tmpl` could have produced, oldest first by the
// progress their names show (See Note [Autoload order]: the iteration, else the epoch
// detail, the epoch or the elapsed time; ties by mtime, then natural order: "x_9" before
// "x_10"). Names starting with "tmp" (partial writes) are skipped unless the template itself
// starts with "tmp". Empty when `dir` is absent.
[[nodiscard]] std::vector<std::filesystem::path> find_snapshot_files(const std::string& tmpl,
                                                                     const std::filesystem::path& dir);
// Removes from `dir` the temporary files that interrupted writes of snapshots named by
// `tmpl` left (See Note [Snapshot writes]); `tmpl` is a template, or with `literal` a plain
// file name. Returns the names removed; files that cannot be removed are left.
std::vector<std::string> remove_stale_temporaries(const std::string& tmpl, const std::filesystem::path& dir,
                                                  bool literal = false);
// Serializes with `save` and writes the result to `dir/filename` as Note [Snapshot
// writes] says. IOError when a step fails; whatever `save` throws propagates (no file).
void write_snapshot(const SnapshotTarget& save, const std::filesystem::path& dir, const std::string& filename,
                    bool compression);

}  // namespace detail

}  // namespace rensa::training::extensions
