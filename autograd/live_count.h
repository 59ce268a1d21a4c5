#pragma once
// Process-wide counts of the live FunctionNodes and VariableNodes (internal), kept
// without a locked read-modify-write per node. See Note [Live node counts] in
// autograd/live_count.cc.

#include <atomic>
#include <cstdint>

namespace rensa::detail {

enum class LiveKind { kFunction = 0, kVariable = 1 };

// This thread's counts (the calling thread's slots, written only by it).
struct LiveCounts {
    std::atomic<int64_t> counts[2]{};
    LiveCounts();
    ~LiveCounts();
    LiveCounts(const LiveCounts&) = delete;
    LiveCounts& operator=(const LiveCounts&) = delete;
};

extern thread_local bool t_live_counts_destroyed;
void add_live_after_thread_exit(LiveKind kind, int64_t delta);

inline void add_live(LiveKind kind, int64_t delta) {
    if (t_live_counts_destroyed) [[unlikely]] {  // a node freed during this thread's exit
        add_live_after_thread_exit(kind, delta);
        return;
    }
    thread_local LiveCounts mine;
    std::atomic<int64_t>& slot = mine.counts[static_cast<int>(kind)];
    slot.store(slot.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

// The number alive in the process: every thread's count summed.
int64_t live_total(LiveKind kind);

}  // namespace rensa::detail
