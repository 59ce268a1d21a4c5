#pragma once
// Whether each convolution problem runs on cuDNN, with which candidate, or on the direct
// kernels: host logic only (cuda/conv_algorithm.cc drives it with cuDNN calls; the tests
// in tests/cuda/test_conv_plan.cc with fakes, without a GPU). Private to the CUDA backend.
//
// Note [Convolution fallback]: each problem (the key of Note [cuDNN algorithm choice] in
// cuda/conv_algorithm.h) gets its list of candidates once, in cuDNN's order of preference.
// A call runs the key's current candidate. When cuDNN answers that this algorithm cannot
// run the problem (cudnn_cannot_run: NOT_SUPPORTED, or a pointer too misaligned for it;
// nothing was queued then), the candidate is dropped for the key and the next one is tried
// in the same call: a walk bounded by the list. The first that runs stays the key's choice.
// When none runs (or the list is empty), the key is cached as "direct": the direct kernels
// of cuda/conv_direct.h run it from then on without asking cuDNN again, and the first call
// that finds it so prints one line to stderr (conv_fallback_message), never again for that
// key: those kernels can be orders of magnitude slower than cuDNN. Every dtype logs, not
// just float32 (a float64 or half problem falling back is as slow; still one line per
// key). The expected direct routes (an output size cuDNN cannot describe: cover_all, a
// deconvolution's outsize, see cuda/conv_shape.h; force_direct_convolution()) are decided
// before any of this and never log.

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace rensa::cuda {

enum class ConvDirection : uint8_t { kForward, kBackwardData, kBackwardFilter };

// One cuDNN candidate of a problem.
struct ConvAlgorithm {
    int algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
    size_t workspace_bytes = 0;
};

// What trying one candidate did (failures other than "cannot run" throw instead).
enum class ConvRun : uint8_t { kRan, kCannotRun };

// Whether a cuDNN run status means "this algorithm cannot run this problem" (nothing queued):
// the NOT_SUPPORTED category and CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER.
bool cudnn_cannot_run(cudnnStatus_t status);

// The largest power of two, at most `cap`, dividing every address of `pointers` (cap when all
// are null). Part of the key: a candidate may refuse misaligned buffers and run aligned ones.
int64_t common_alignment(std::initializer_list<const void*> pointers, int64_t cap = 256);

// A problem in the user's terms, shapes in forward roles: x (n, c_in, *in), w, y.
struct ConvShapes {
    Dtype dtype = Dtype::kFloat32;
    Shape x, w, y, stride, pad, dilate;
    int64_t groups = 1;
};

// The line printed once when a problem falls back to the direct kernels (no newline), e.g.
// "rensa: cuda:0 convolution forward float32 x(2, 3, 5, 5) w(...) y(...) stride (1, 1) pad
// (0, 0) dilate (1, 1) groups 1 has no cuDNN algorithm that runs; running the direct kernels (slow)".
std::string conv_fallback_message(ConvDirection direction, int device, const ConvShapes& shapes);

// The decisions of Note [Convolution fallback], per key. Thread-safe; the callbacks run
// without the lock held.
class ConvPlanCache {
public:
    using Key = std::vector<int64_t>;
    using ListFn = std::function<std::vector<ConvAlgorithm>()>;
    using TryFn = std::function<ConvRun(const ConvAlgorithm&)>;
    using ReportFn = std::function<void()>;

    // Runs problem `key` through `try_run` with its current candidate and, while candidates
    // cannot run, the next ones; `candidates()` is asked on the key's first call only. True
    // when one ran. False when none does: then the first call to find that out (for the
    // cache's life) calls `report`, and later calls return false without calling anything.
    // An exception of a callback propagates and leaves the key as it was.
    bool run(const Key& key, const ListFn& candidates, const TryFn& try_run, const ReportFn& report);

    // The key's current candidate: nothing when the key is unknown or direct.
    std::optional<ConvAlgorithm> current(const Key& key) const;
    // Whether the key is cached as "direct".
    bool is_direct(const Key& key) const;

private:
    struct Entry {
        std::vector<ConvAlgorithm> candidates;
        size_t current = 0;  // candidates.size(): direct
        bool reported = false;
    };
    Entry& entry(const Key& key, const ListFn& candidates);

    mutable std::mutex mutex_;
    std::map<Key, Entry> entries_;  // never erased: references stay valid
};

}  // namespace rensa::cuda
