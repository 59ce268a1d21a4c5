#include "distributed/checkpoint.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <set>
#include <sstream>
#include <utility>

#include "core/error.h"
#include "serializers/npz.h"
#include "training/trainer.h"

namespace rensa::distributed {

namespace fs = std::filesystem;

namespace {

// Gives load_npz a serialize() over a SnapshotTarget.
struct TargetAdapter {
    const training::extensions::SnapshotTarget& target;
    void serialize(const serializers::Serializer& s) const { target(s); }
};

training::extensions::SnapshotTarget trainer_target(training::Trainer& trainer) {
    return [&trainer](const serializers::Serializer& s) { trainer.serialize(s); };
}

// "<digits>" as a non-negative integer; nullopt otherwise.
std::optional<int64_t> parse_count(const std::string& text) {
    if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), ::isdigit)) return std::nullopt;
    return std::stoll(text);
}

std::string join(const std::vector<int64_t>& values) {
    std::ostringstream out;
    for (const int64_t v : values) out << v << ' ';
    return out.str();
}

std::set<int64_t> split(const std::string& text) {
    std::istringstream in{text};
    std::set<int64_t> out;
    for (int64_t v = 0; in >> v;) out.insert(v);
    return out;
}

// ChainerMN's _parse_replica_sets: the given sets plus one of the remaining ranks.
std::vector<std::set<int>> parse_replica_sets(const std::vector<std::vector<int>>& given, int size) {
    std::vector<std::set<int>> sets;
    std::set<int> used;
    for (const std::vector<int>& ranks : given) {
        std::set<int> set;
        for (const int r : ranks) {
            RENSA_CHECK(r >= 0 && r < size, ValueError, "multi_node_snapshot: rank ", r,
                        " in replica_sets is not a rank of a communicator of ", size);
            RENSA_CHECK(used.insert(r).second, ValueError, "multi_node_snapshot: rank ", r,
                        " appears twice in replica_sets");
            set.insert(r);
        }
        if (!set.empty()) sets.push_back(std::move(set));
    }
    std::set<int> rest;
    for (int r = 0; r < size; ++r) {
        if (used.count(r) == 0) rest.insert(r);
    }
    if (!rest.empty()) sets.push_back(std::move(rest));
    return sets;
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in{path, std::ios::binary};
    RENSA_CHECK(in.good(), IOError, "multi_node_snapshot: cannot read ", path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

}  // namespace

MultiNodeCheckpointer::MultiNodeCheckpointer(std::string name, CommunicatorPtr comm,
                                             MultiNodeCheckpointerOptions options)
    : name_{std::move(name)}, comm_{std::move(comm)}, options_{std::move(options)}, path_{options_.path} {
    RENSA_CHECK(!name_.empty() && name_.find('/') == std::string::npos, ValueError,
                "create_multi_node_checkpointer: name '", name_, "' must be non-empty and without '/'");
    RENSA_CHECK(comm_ != nullptr, ValueError, "create_multi_node_checkpointer: the communicator is null");
    RENSA_CHECK(options_.cp_interval >= 1 && options_.gc_interval >= 1, ValueError,
                "create_multi_node_checkpointer: cp_interval and gc_interval must be >= 1, got ", options_.cp_interval,
                " and ", options_.gc_interval);
}

std::string MultiNodeCheckpointer::filename(int64_t iteration) const {
    return name_ + "." + std::to_string(comm_->rank()) + "." + std::to_string(iteration);
}

std::vector<int64_t> MultiNodeCheckpointer::local_iterations(const std::string& dir) const {
    const std::string prefix = name_ + "." + std::to_string(comm_->rank()) + ".";
    std::vector<int64_t> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator{dir, ec}) {
        const std::string file = entry.path().filename().string();
        if (file.rfind(prefix, 0) != 0) continue;
        std::error_code stat_ec;
        if (!entry.is_regular_file(stat_ec)) continue;
        if (const auto iteration = parse_count(file.substr(prefix.size()))) found.push_back(*iteration);
    }
    std::sort(found.begin(), found.end());
    return found;
}

std::string MultiNodeCheckpointer::folder(const std::string& override_path) const {
    return override_path.empty() ? path_ : override_path;
}

void MultiNodeCheckpointer::operator()(training::Trainer& trainer) {
    if (path_.empty()) path_ = trainer.out();
    save(trainer, trainer.updater().iteration());
}

void MultiNodeCheckpointer::save(training::Trainer& trainer, int64_t iteration) {
    if (path_.empty()) path_ = trainer.out();
    save(trainer_target(trainer), iteration);
}

void MultiNodeCheckpointer::save(const training::extensions::SnapshotTarget& target, int64_t iteration) {
    RENSA_CHECK(!path_.empty(), ValueError,
                "MultiNodeCheckpointer.save: no folder (set options.path, or save a trainer)");
    const auto start = std::chrono::steady_clock::now();
    training::extensions::detail::write_snapshot(target, path_, filename(iteration), options_.compression);
    durations_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    const auto at = std::lower_bound(iterations_.begin(), iterations_.end(), iteration);
    if (at == iterations_.end() || *at != iteration) iterations_.insert(at, iteration);
    if (++saves_since_gc_ >= options_.gc_interval) {
        saves_since_gc_ = 0;
        sync_files(options_.cp_interval, /*remove=*/true);
    }
}

void MultiNodeCheckpointer::sync_files(int64_t keep, bool remove) {
    std::set<int64_t> common;
    bool first = true;
    for (const std::string& text : comm_->allgather_obj(join(iterations_))) {
        std::set<int64_t> theirs = split(text);
        if (first) {
            common = std::move(theirs);
            first = false;
            continue;
        }
        std::set<int64_t> both;
        std::set_intersection(common.begin(), common.end(), theirs.begin(), theirs.end(),
                              std::inserter(both, both.begin()));
        common = std::move(both);
    }
    std::vector<int64_t> kept(common.begin(), common.end());
    if (keep > 0 && static_cast<int64_t>(kept.size()) > keep) kept.erase(kept.begin(), kept.end() - keep);
    if (remove) {
        for (const int64_t iteration : iterations_) {
            if (std::binary_search(kept.begin(), kept.end(), iteration)) continue;
            std::error_code ec;
            fs::remove(fs::path{path_} / filename(iteration), ec);  // already gone is fine
        }
    }
    iterations_ = std::move(kept);
}

std::optional<int64_t> MultiNodeCheckpointer::maybe_load(training::Trainer& trainer, const MaybeLoadOptions& options) {
    if (path_.empty() && options.path.empty()) path_ = trainer.out();
    return maybe_load(trainer_target(trainer), options);
}

std::optional<int64_t> MultiNodeCheckpointer::maybe_load(const training::extensions::SnapshotTarget& target,
                                                         const MaybeLoadOptions& options) {
    path_ = folder(options.path);
    RENSA_CHECK(!path_.empty(), ValueError, "MultiNodeCheckpointer.maybe_load: no folder (set options.path)");
    iterations_ = local_iterations(path_);
    sync_files(/*keep=*/-1, /*remove=*/false);
    std::ostringstream failures;
    for (auto it = iterations_.rbegin(); it != iterations_.rend(); ++it) {
        std::string error;
        try {
            TargetAdapter adapter{target};
            serializers::load_npz((fs::path{path_} / filename(*it)).string(), adapter);
        } catch (const std::exception& e) {
            error = e.what();
        }
        // Every rank learns every outcome, so all take the same branch.
        const std::vector<std::string> errors = comm_->allgather_obj(error);
        bool all_loaded = true;
        for (size_t r = 0; r < errors.size(); ++r) {
            if (errors[r].empty()) continue;
            all_loaded = false;
            failures << " [iteration " << *it << ", rank " << r << ": " << errors[r] << "]";
        }
        if (!all_loaded) continue;
        if (options.on_resumed) options.on_resumed();
        return *it;
    }
    RENSA_CHECK(iterations_.empty(), IOError, "MultiNodeCheckpointer.maybe_load: no common checkpoint of '", name_,
                "' in ", path_, " loads on every rank:", failures.str(),
                " (ranks that loaded one keep its state: restart without these files)");
    return std::nullopt;
}

void MultiNodeCheckpointer::on_error(training::Trainer& trainer, const std::exception& error) {
    (void)trainer;
    (void)error;
    failed_ = true;  // keep the checkpoints for the restart
}

void MultiNodeCheckpointer::finalize() {
    if (!options_.cleanup || failed_ || path_.empty()) return;
    for (const int64_t iteration : iterations_) {
        std::error_code ec;
        fs::remove(fs::path{path_} / filename(iteration), ec);
    }
    iterations_.clear();
}

std::string MultiNodeCheckpointer::get_stats() const {
    if (durations_.empty()) return "No stats available";
    const double sum = std::accumulate(durations_.begin(), durations_.end(), 0.0);
    std::ostringstream out;
    out << "Snapshot duration stats (sec): avg=" << sum / static_cast<double>(durations_.size())
        << ", min=" << *std::min_element(durations_.begin(), durations_.end())
        << ", max=" << *std::max_element(durations_.begin(), durations_.end());
    return out.str();
}

MultiNodeSnapshot::MultiNodeSnapshot(CommunicatorPtr comm, training::extensions::SnapshotOptions options,
                                     std::vector<std::vector<int>> replica_sets,
                                     training::extensions::SnapshotTarget target)
    : comm_{std::move(comm)}, options_{std::move(options)}, target_{std::move(target)} {
    RENSA_CHECK(comm_ != nullptr, ValueError, "multi_node_snapshot: the communicator is null");
    const std::string suffix = "." + std::to_string(comm_->rank());
    if (options_.filename_fn) {
        options_.filename_fn = [inner = options_.filename_fn, suffix](const training::Trainer& t) {
            return inner(t) + suffix;
        };
    } else {
        options_.filename += suffix;
    }
    snapshot_ = std::make_shared<training::extensions::Snapshot>(options_, target_);
    for (const std::set<int>& set : parse_replica_sets(replica_sets, comm_->size())) {
        if (set.count(comm_->rank()) == 0) continue;
        master_ = *set.begin();
        replica_set_.assign(set.begin(), set.end());
    }
}

void MultiNodeSnapshot::operator()(training::Trainer& trainer) {
    if (is_master()) (*snapshot_)(trainer);
}

void MultiNodeSnapshot::initialize(training::Trainer& trainer) {
    const bool share = options_.autoload && !options_.filename_fn && replica_set_.size() > 1;
    if (!is_master()) {
        if (share) receive_loaded(trainer);
        return;
    }
    try {
        snapshot_->initialize(trainer);
    } catch (const std::exception& e) {
        if (share) send_to_replicas(std::string{"E"} + e.what());  // the set fails with its master
        throw;
    }
    if (!share) return;
    // The master sends what it loaded (the file's bytes after "1") or "0" to its set.
    send_to_replicas(snapshot_->loaded().empty() ? "0" : "1" + read_bytes(snapshot_->loaded()));
}

void MultiNodeSnapshot::send_to_replicas(const std::string& data) {
    for (const int r : replica_set_) {
        if (r != comm_->rank()) comm_->send_obj(data, r);
    }
}

void MultiNodeSnapshot::receive_loaded(training::Trainer& trainer) {
    const std::string data = comm_->recv_obj(master_);
    RENSA_CHECK(data.empty() || data[0] != 'E', IOError, "multi_node_snapshot: the master rank ", master_,
                " of this replica set failed to load its snapshot: ", data.substr(1));
    if (data.empty() || data[0] != '1') return;
    const std::string_view bytes{data.data() + 1, data.size() - 1};
    if (target_) {
        TargetAdapter adapter{target_};
        serializers::load_npz_from_memory(bytes, adapter);
    } else {
        serializers::load_npz_from_memory(bytes, trainer);
    }
}

void MultiNodeSnapshot::on_error(training::Trainer& trainer, const std::exception& error) {
    if (is_master()) snapshot_->on_error(trainer, error);
}

void MultiNodeSnapshot::finalize() {
    if (is_master()) snapshot_->finalize();
}

std::shared_ptr<MultiNodeSnapshot> multi_node_snapshot(CommunicatorPtr comm,
                                                       training::extensions::SnapshotOptions options,
                                                       std::vector<std::vector<int>> replica_sets,
                                                       training::extensions::SnapshotTarget target) {
    return std::make_shared<MultiNodeSnapshot>(std::move(comm), std::move(options), std::move(replica_sets),
                                               std::move(target));
}

std::shared_ptr<MultiNodeCheckpointer> create_multi_node_checkpointer(std::string name, CommunicatorPtr comm,
                                                                      MultiNodeCheckpointerOptions options) {
    return std::make_shared<MultiNodeCheckpointer>(std::move(name), std::move(comm), std::move(options));
}

}  // namespace rensa::distributed
