#pragma once
// chainermn.create_multi_node_checkpointer: each rank snapshots its own state (the trainer,
// or any object with serialize) to "<path>/<name>.<rank>.<iteration>" (an NPZ file written
// as the training snapshot writes: temporary file, fsync, rename; see Note [Snapshot writes]
// in training/extensions/snapshot.h), and a restarted job resumes at the newest iteration
// whose checkpoint exists on every rank.
//
//   auto checkpointer = create_multi_node_checkpointer("run1", comm);
//   trainer.extend(checkpointer, {.trigger = {100, "iteration"}});
//   checkpointer->maybe_load(trainer);  // after every stateful extension was added
//   trainer.run();
//
// Note [Checkpoint generations]: every gc_interval saves the ranks agree (allgather) on the
// iterations every rank has and keep the newest cp_interval of those; older files of this
// run and rank are removed. finalize() removes this run's files when training ended without
// an error (so a failed job keeps them for the restart), unless cleanup is off.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/communicator.h"
#include "training/extension.h"
#include "training/extensions/snapshot.h"

namespace rensa::distributed {

// chainermn's keyword arguments (path: the folder; empty means trainer.out()).
struct MultiNodeCheckpointerOptions {
    int64_t cp_interval = 5;  // checkpoints kept (the newest common ones); >= 1
    int64_t gc_interval = 5;  // saves between two collections; >= 1
    std::string path = "";
    bool cleanup = true;  // finalize() removes the files after a run without error
    bool compression = true;
};

struct MaybeLoadOptions {
    std::string path = "";  // overrides the folder (else options.path, else trainer.out())
    // Called on every rank after a resume. ChainerMN passes the multi-node optimizer here to
    // skip its first broadcast (every rank loaded a consistent state).
    std::function<void()> on_resumed = nullptr;
};

class MultiNodeCheckpointer : public training::Extension {
public:
    // ValueError for an empty name (or one with '/'), a null comm, or intervals < 1.
    MultiNodeCheckpointer(std::string name, CommunicatorPtr comm, MultiNodeCheckpointerOptions options = {});

    // save(trainer, trainer's iteration). Every rank must call it at the same iterations.
    void operator()(training::Trainer& trainer) override;
    // Writes `target` as this rank's checkpoint of `iteration`; every gc_interval-th call is
    // collective (Note [Checkpoint generations]). IOError when writing fails.
    void save(const training::extensions::SnapshotTarget& target, int64_t iteration);
    void save(training::Trainer& trainer, int64_t iteration);

    // Collective. Finds this rank's checkpoints, agrees with the others on the iterations all
    // of them have, and loads the newest into `trainer` (load_npz: all or nothing). When that
    // file fails to load on some rank, every rank tries the next older common one. Returns
    // the iteration resumed at, or nullopt (nothing changed) when there is no common one.
    // IOError on every rank, naming the failing ranks, when no common checkpoint loads everywhere
    // (ranks that loaded one keep it: restart from scratch).
    std::optional<int64_t> maybe_load(training::Trainer& trainer, const MaybeLoadOptions& options = {});
    std::optional<int64_t> maybe_load(const training::extensions::SnapshotTarget& target,
                                      const MaybeLoadOptions& options = {});

    void on_error(training::Trainer& trainer, const std::exception& error) override;
    void finalize() override;
    std::string default_name() const override { return "_MultiNodeCheckpointer"; }

    // "<name>.<rank>.<iteration>".
    [[nodiscard]] std::string filename(int64_t iteration) const;
    // The iterations of this run's and rank's checkpoints in `dir`, ascending.
    [[nodiscard]] std::vector<int64_t> local_iterations(const std::string& dir) const;
    // The iterations this checkpointer currently keeps track of, ascending.
    const std::vector<int64_t>& iterations() const { return iterations_; }
    // "Snapshot duration stats (sec): avg=..., min=..., max=..." (ChainerMN's get_stats).
    [[nodiscard]] std::string get_stats() const;

private:
    // Agrees on the common iterations, keeps the newest `keep` (all when keep < 0) and,
    // with remove, deletes this rank's other tracked files.
    void sync_files(int64_t keep, bool remove);
    std::string folder(const std::string& override_path) const;

    std::string name_;
    CommunicatorPtr comm_;
    MultiNodeCheckpointerOptions options_;
    std::string path_;                 // resolved folder ("" until known)
    std::vector<int64_t> iterations_;  // checkpoints written or found, ascending
    int64_t saves_since_gc_ = 0;
    bool failed_ = false;
    std::vector<double> durations_;
};

// chainermn.create_multi_node_checkpointer.
[[nodiscard]] std::shared_ptr<MultiNodeCheckpointer> create_multi_node_checkpointer(
    std::string name, CommunicatorPtr comm, MultiNodeCheckpointerOptions options = {});

// chainermn.extensions.multi_node_snapshot: a training snapshot (training/extensions/
// snapshot.h) taken only by the master (lowest rank) of each replica set, to
// "<filename>.<rank>". Ranks of one set hold the same state (data parallelism: one set of all
// ranks is the default, so only rank 0 writes). With autoload, initialize() lets each master
// load its newest file and sends it to the rest of its set (collective within each set), so
// a job restarted with another size still resumes.
class MultiNodeSnapshot : public training::Extension {
public:
    // `replica_sets`: disjoint lists of ranks; the ranks in none of them form one more set
    // ({{0}} over 4 ranks: {0}, {1, 2, 3}). `target` null: the trainer. ValueError for a rank
    // outside [0, size), a rank in two sets, a null comm, or a bad filename (as Snapshot).
    MultiNodeSnapshot(CommunicatorPtr comm, training::extensions::SnapshotOptions options = {},
                      std::vector<std::vector<int>> replica_sets = {},
                      training::extensions::SnapshotTarget target = nullptr);

    void operator()(training::Trainer& trainer) override;
    void initialize(training::Trainer& trainer) override;
    void on_error(training::Trainer& trainer, const std::exception& error) override;
    void finalize() override;
    std::string default_name() const override { return "_MultiNodeSnapshot"; }
    training::TriggerArg default_trigger() const override { return {1, "epoch"}; }
    int priority() const override { return -100; }

    bool is_master() const { return master_ == comm_->rank(); }
    int master() const { return master_; }
    // This rank's set, ascending.
    const std::vector<int>& replica_set() const { return replica_set_; }

private:
    void send_to_replicas(const std::string& data);
    void receive_loaded(training::Trainer& trainer);

    CommunicatorPtr comm_;
    training::extensions::SnapshotOptions options_;  // filename with ".<rank>"
    training::extensions::SnapshotTarget target_;
    std::shared_ptr<training::extensions::Snapshot> snapshot_;
    int master_ = 0;
    std::vector<int> replica_set_;
};

// chainermn.extensions.multi_node_snapshot. See MultiNodeSnapshot.
[[nodiscard]] std::shared_ptr<MultiNodeSnapshot> multi_node_snapshot(
    CommunicatorPtr comm, training::extensions::SnapshotOptions options = {},
    std::vector<std::vector<int>> replica_sets = {}, training::extensions::SnapshotTarget target = nullptr);

}  // namespace rensa::distributed
