#include "autograd/live_count.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace rensa::detail {

// Note [Live node counts]: FunctionNode::live_count and VariableNode::live_count (the
// tests of graph release use them) were one process-wide atomic each, so every recorded
// node paid four locked read-modify-writes for them (made and freed, function and output
// node). Now each thread counts in its own slots with plain relaxed loads and stores (only
// that thread writes them), the slots are registered, and live_total sums them under the
// registry's mutex. A thread that ends adds its counts to the registry's `retired` total;
// a node freed after its thread's slots are gone (during thread exit or static
// destruction) updates `retired` directly. A node made on one thread and freed on another
// leaves +1 and -1 in two slots: the sum is still right. The total read while other
// threads make or free nodes is a snapshot, as the atomic was.
namespace {
struct Registry {
    std::mutex mutex;
    std::vector<LiveCounts*> threads;
    std::atomic<int64_t> retired[2]{};
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: threads may end after static destruction
    return *r;
}
}  // namespace

thread_local bool t_live_counts_destroyed = false;  // trivially destructible: readable during thread exit

LiveCounts::LiveCounts() {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    r.threads.push_back(this);
}

LiveCounts::~LiveCounts() {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    for (int k = 0; k < 2; ++k) r.retired[k].fetch_add(counts[k].load(std::memory_order_relaxed));
    r.threads.erase(std::find(r.threads.begin(), r.threads.end(), this));
    t_live_counts_destroyed = true;
}

void add_live_after_thread_exit(LiveKind kind, int64_t delta) {
    registry().retired[static_cast<int>(kind)].fetch_add(delta, std::memory_order_relaxed);
}

int64_t live_total(LiveKind kind) {
    const int k = static_cast<int>(kind);
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    int64_t total = r.retired[k].load(std::memory_order_relaxed);
    for (const LiveCounts* counts : r.threads) total += counts->counts[k].load(std::memory_order_relaxed);
    return total;
}

}  // namespace rensa::detail
