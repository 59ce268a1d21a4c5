#include "cuda/conv_algorithm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/check.h"

namespace rensa::cuda {
namespace {

bool benchmark_mode() {
    static const bool on = [] {
        const char* v = std::getenv("RENSA_CUDNN_BENCHMARK");
        return v != nullptr && std::strcmp(v, "1") == 0;
    }();
    return on;
}

// Workspace bytes a choice may take: free device memory plus what our cache could release.
size_t workspace_limit(int device) {
    size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free + static_cast<size_t>(std::max<int64_t>(caching_allocator(device).stats().cached_bytes, 0));
}

// Benchmark mode runs every algorithm with a workspace of at most this size.
constexpr size_t kMaxFindWorkspace = size_t{1} << 30;

// The workspace `algo` needs under the descriptor's current math type; nothing when
// cuDNN does not support the pair.
std::optional<size_t> workspace_size(const ConvProblem& p, int algo) {
    size_t bytes = 0;
    cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
    switch (p.direction) {
        case ConvDirection::kForward:
            status =
                cudnnGetConvolutionForwardWorkspaceSize(p.handle, p.x->get(), p.w->get(), p.conv->get(), p.y->get(),
                                                        static_cast<cudnnConvolutionFwdAlgo_t>(algo), &bytes);
            break;
        case ConvDirection::kBackwardData:
            status = cudnnGetConvolutionBackwardDataWorkspaceSize(
                p.handle, p.w->get(), p.y->get(), p.conv->get(), p.x->get(),
                static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes);
            break;
        case ConvDirection::kBackwardFilter:
            status = cudnnGetConvolutionBackwardFilterWorkspaceSize(
                p.handle, p.x->get(), p.y->get(), p.conv->get(), p.w->get(),
                static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes);
            break;
    }
    if (status != CUDNN_STATUS_SUCCESS) return std::nullopt;
    return bytes;
}

// The usable candidates of a perf list, in its order (see Note [cuDNN algorithm choice]).
template <class Perf>
std::vector<ConvAlgorithm> fitting(const ConvProblem& p, const std::vector<Perf>& perfs, int count, size_t limit) {
    std::vector<ConvAlgorithm> out;
    for (int i = 0; i < count; ++i) {
        const Perf& perf = perfs[static_cast<size_t>(i)];
        if (perf.status != CUDNN_STATUS_SUCCESS) continue;
        const cudnnMathType_t math = p.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : perf.mathType;
        p.conv->set_math_type(math);
        const std::optional<size_t> bytes = workspace_size(p, static_cast<int>(perf.algo));
        if (bytes && *bytes <= limit) out.push_back(ConvAlgorithm{static_cast<int>(perf.algo), math, *bytes});
    }
    p.conv->set_math_type(p.math);
    return out;
}

// Runs `search(perfs, max_count, &returned, workspace, workspace_bytes, find)` (the cuDNN
// call named get_call, or find_call in benchmark mode) and lists the candidates; none when
// cuDNN does not support the problem at all or rejects its descriptors.
template <class Perf, class Search>
std::vector<ConvAlgorithm> search_algorithms(const ConvProblem& p, int max_count, const char* get_call,
                                             const char* find_call, Search&& search) {
    std::vector<Perf> perfs(static_cast<size_t>(std::max(max_count, 1)));
    int returned = 0;
    cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
    size_t limit = workspace_limit(p.device);
    if (benchmark_mode()) {
        limit = std::min(limit, kMaxFindWorkspace);
        const std::shared_ptr<Storage> workspace = caching_allocator(p.device).allocate(static_cast<int64_t>(limit));
        status = search(perfs.data(), max_count, &returned, workspace->data(), limit, true);
    } else {
        status = search(perfs.data(), max_count, &returned, nullptr, 0, false);
    }
    // A problem cuDNN cannot describe (BAD_PARAM) has no algorithm either: the direct kernels run it.
    const int category = CUDNN_STATUS_CATEGORY(status);
    if (category == CUDNN_STATUS_NOT_SUPPORTED || category == CUDNN_STATUS_BAD_PARAM) return {};
    check_cudnn(status, benchmark_mode() ? find_call : get_call);
    return fitting(p, perfs, std::min(returned, max_count), limit);
}

// Each direction: its perf list type and its two searches (heuristics, or run them all).
std::vector<ConvAlgorithm> choose_forward(const ConvProblem& p) {
    int max_count = 0;
    check_cudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(p.handle, &max_count),
                "cudnnGetConvolutionForwardAlgorithmMaxCount");
    return search_algorithms<cudnnConvolutionFwdAlgoPerf_t>(
        p, max_count, "cudnnGetConvolutionForwardAlgorithm_v7", "cudnnFindConvolutionForwardAlgorithmEx",
        [&](cudnnConvolutionFwdAlgoPerf_t* perfs, int n, int* returned, void* ws, size_t bytes, bool find) {
            if (find) {
                return cudnnFindConvolutionForwardAlgorithmEx(p.handle, p.x->get(), p.x_data, p.w->get(), p.w_data,
                                                              p.conv->get(), p.y->get(), p.y_data, n, returned, perfs,
                                                              ws, bytes);
            }
            return cudnnGetConvolutionForwardAlgorithm_v7(p.handle, p.x->get(), p.w->get(), p.conv->get(), p.y->get(),
                                                          n, returned, perfs);
        });
}

std::vector<ConvAlgorithm> choose_backward_data(const ConvProblem& p) {
    int max_count = 0;
    check_cudnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(p.handle, &max_count),
                "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
    return search_algorithms<cudnnConvolutionBwdDataAlgoPerf_t>(
        p, max_count, "cudnnGetConvolutionBackwardDataAlgorithm_v7", "cudnnFindConvolutionBackwardDataAlgorithmEx",
        [&](cudnnConvolutionBwdDataAlgoPerf_t* perfs, int n, int* returned, void* ws, size_t bytes, bool find) {
            if (find) {
                return cudnnFindConvolutionBackwardDataAlgorithmEx(p.handle, p.w->get(), p.w_data, p.y->get(), p.y_data,
                                                                   p.conv->get(), p.x->get(), p.x_data, n, returned,
                                                                   perfs, ws, bytes);
            }
            return cudnnGetConvolutionBackwardDataAlgorithm_v7(p.handle, p.w->get(), p.y->get(), p.conv->get(),
                                                               p.x->get(), n, returned, perfs);
        });
}

std::vector<ConvAlgorithm> choose_backward_filter(const ConvProblem& p) {
    int max_count = 0;
    check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(p.handle, &max_count),
                "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
    return search_algorithms<cudnnConvolutionBwdFilterAlgoPerf_t>(
        p, max_count, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", "cudnnFindConvolutionBackwardFilterAlgorithmEx",
        [&](cudnnConvolutionBwdFilterAlgoPerf_t* perfs, int n, int* returned, void* ws, size_t bytes, bool find) {
            if (find) {
                return cudnnFindConvolutionBackwardFilterAlgorithmEx(p.handle, p.x->get(), p.x_data, p.y->get(),
                                                                     p.y_data, p.conv->get(), p.w->get(), p.w_data, n,
                                                                     returned, perfs, ws, bytes);
            }
            return cudnnGetConvolutionBackwardFilterAlgorithm_v7(p.handle, p.x->get(), p.y->get(), p.conv->get(),
                                                                 p.w->get(), n, returned, perfs);
        });
}

std::vector<ConvAlgorithm> choose(const ConvProblem& p) {
    switch (p.direction) {
        case ConvDirection::kForward:
            return choose_forward(p);
        case ConvDirection::kBackwardData:
            return choose_backward_data(p);
        case ConvDirection::kBackwardFilter:
            return choose_backward_filter(p);
    }
    return {};
}

ConvPlanCache& plan_cache() {
    static ConvPlanCache cache;  // holds no CUDA object: destroyed at exit like any map
    return cache;
}

}  // namespace

bool run_cudnn_convolution(const ConvProblem& problem, const std::function<ConvRun(const ConvAlgorithm&)>& try_run) {
    RENSA_ASSERT(problem.shapes != nullptr);
    ConvPlanCache::Key key{static_cast<int64_t>(problem.direction), problem.device, static_cast<int64_t>(problem.math),
                           common_alignment({problem.x_data, problem.w_data, problem.y_data})};
    key.insert(key.end(), problem.key.begin(), problem.key.end());
    return plan_cache().run(
        key, [&] { return choose(problem); }, try_run,
        [&] {
            const std::string line = conv_fallback_message(problem.direction, problem.device, *problem.shapes);
            std::cerr << line + "\n" << std::flush;  // one write: lines of threads do not interleave
        });
}

}  // namespace rensa::cuda
