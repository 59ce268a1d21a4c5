#include "cuda/conv_plan.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <sstream>
#include <utility>

namespace rensa::cuda {
namespace {

const char* direction_name(ConvDirection direction) {
    switch (direction) {
        case ConvDirection::kForward:
            return "forward";
        case ConvDirection::kBackwardData:
            return "backward data";
        case ConvDirection::kBackwardFilter:
            return "backward filter";
    }
    return "?";
}

}  // namespace

bool cudnn_cannot_run(cudnnStatus_t status) {
    return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED ||
           status == CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER;
}

int64_t common_alignment(std::initializer_list<const void*> pointers, int64_t cap) {
    auto bits = static_cast<uint64_t>(cap);
    for (const void* p : pointers) bits |= static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
    return std::min(cap, static_cast<int64_t>(uint64_t{1} << std::countr_zero(bits)));
}

std::string conv_fallback_message(ConvDirection direction, int device, const ConvShapes& s) {
    std::ostringstream os;
    os << "rensa: cuda:" << device << " convolution " << direction_name(direction) << ' ' << s.dtype << " x" << s.x
       << " w" << s.w << " y" << s.y << " stride " << s.stride << " pad " << s.pad << " dilate " << s.dilate
       << " groups " << s.groups << " has no cuDNN algorithm that runs; running the direct kernels (slow)";
    return os.str();
}

// The key's entry, its candidates asked for (outside the lock) when it is new. Of two threads
// adding the same key at once, the first to insert wins; the other's list is dropped.
ConvPlanCache::Entry& ConvPlanCache::entry(const Key& key, const ListFn& candidates) {
    {
        const std::lock_guard lock{mutex_};
        const auto it = entries_.find(key);
        if (it != entries_.end()) return it->second;
    }
    Entry fresh{candidates()};
    const std::lock_guard lock{mutex_};
    return entries_.emplace(key, std::move(fresh)).first->second;
}

bool ConvPlanCache::run(const Key& key, const ListFn& candidates, const TryFn& try_run, const ReportFn& report) {
    Entry& e = entry(key, candidates);
    // Each pass either returns or leaves e.current past `index` (this thread moved it, or
    // another did), so the loop ends within candidates.size() + 1 passes.
    for (;;) {
        size_t index = 0;
        ConvAlgorithm candidate;
        bool direct = false, first_report = false;
        {
            const std::lock_guard lock{mutex_};
            index = e.current;
            direct = index >= e.candidates.size();
            if (direct) {
                first_report = !e.reported;
                e.reported = true;
            } else {
                candidate = e.candidates[index];
            }
        }
        if (direct) {
            if (first_report) report();
            return false;
        }
        if (try_run(candidate) == ConvRun::kRan) return true;
        const std::lock_guard lock{mutex_};
        if (e.current == index) e.current = index + 1;
    }
}

std::optional<ConvAlgorithm> ConvPlanCache::current(const Key& key) const {
    const std::lock_guard lock{mutex_};
    const auto it = entries_.find(key);
    if (it == entries_.end() || it->second.current >= it->second.candidates.size()) return std::nullopt;
    return it->second.candidates[it->second.current];
}

bool ConvPlanCache::is_direct(const Key& key) const {
    const std::lock_guard lock{mutex_};
    const auto it = entries_.find(key);
    return it != entries_.end() && it->second.current >= it->second.candidates.size();
}

}  // namespace rensa::cuda
