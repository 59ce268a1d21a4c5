#include "cuda/cuda_backend.h"

#include <cstring>
#include <mutex>
#include <vector>

#include <cuda_runtime.h>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/pinned.h"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

// Below this, host -> device copies go straight from pageable memory (the driver stages
// them before returning); above it through our pinned buffers, which copy at full speed.
constexpr int64_t kStagingThreshold = int64_t{64} << 10;

// A pinned staging buffer still read by a queued host -> device copy.
struct Staged {
    std::shared_ptr<void> buffer;
    cudaEvent_t done = nullptr;  // recorded after the copy
};

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int count) {
        for (int i = 0; i < count; ++i) {
            allocators_.push_back(std::make_shared<CachingAllocator>(i));
            kernels_.push_back(std::make_unique<CudaKernels>(i));
        }
    }

    ~CudaBackend() override {
        // The staging buffers go back to the pinned cache only once their copies finished.
        // At exit the runtime may be gone already: errors are ignored.
        for (Staged& s : staged_) {
            (void)cudaEventSynchronize(s.done);
            (void)cudaEventDestroy(s.done);
        }
        (void)cudaGetLastError();
    }

    DeviceKind kind() const override { return DeviceKind::kCuda; }
    int device_count() const override { return static_cast<int>(allocators_.size()); }
    Allocator& allocator(int index) override { return *allocators_.at(static_cast<size_t>(index)); }
    Kernels& kernels(int index) override { return *kernels_.at(static_cast<size_t>(index)); }

    // The contract: the bytes are usable by the host on return, so the stream is synchronised.
    void copy_to_host(int index, void* host_dst, const void* src, int64_t bytes) override {
        if (bytes == 0) return;
        DeviceGuard guard{index};
        const cudaStream_t stream = current_stream(index);
        check_cuda(cudaMemcpyAsync(host_dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost, stream),
                   "cudaMemcpyAsync (device to host)");
        check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    // Ordered on the current stream; the host buffer may be reused on return.
    void copy_from_host(int index, void* dst, const void* host_src, int64_t bytes) override {
        if (bytes == 0) return;
        DeviceGuard guard{index};
        const cudaStream_t stream = current_stream(index);
        reclaim_staged();
        std::shared_ptr<void> buffer;
        if (bytes >= kStagingThreshold) {
            try {
                buffer = pinned_buffer(bytes);
            } catch (const OutOfMemoryError&) {
                buffer = nullptr;  // no pinned memory left: copy from pageable memory instead
            }
        }
        if (buffer == nullptr) {
            check_cuda(cudaMemcpyAsync(dst, host_src, static_cast<size_t>(bytes), cudaMemcpyHostToDevice, stream),
                       "cudaMemcpyAsync (host to device)");
            return;
        }
        std::memcpy(buffer.get(), host_src, static_cast<size_t>(bytes));
        check_cuda(cudaMemcpyAsync(dst, buffer.get(), static_cast<size_t>(bytes), cudaMemcpyHostToDevice, stream),
                   "cudaMemcpyAsync (host to device)");
        keep_until_done(stream, std::move(buffer));
    }

    // Note [Streams]: a copy between two GPUs runs on the destination's current stream after
    // the source's queued work, and the source's later work (which may reuse `src`) waits
    // for the copy.
    void copy_between(int src_index, const void* src, int dst_index, void* dst, int64_t bytes) override {
        if (bytes == 0) return;
        if (src_index == dst_index) {
            DeviceGuard guard{src_index};
            check_cuda(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice,
                                       current_stream(src_index)),
                       "cudaMemcpyAsync (device to device)");
            return;
        }
        const cudaStream_t src_stream = current_stream(src_index);
        const cudaStream_t dst_stream = current_stream(dst_index);
        Event ready{src_index};
        ready.record(src_stream);
        ready.wait(dst_stream);
        {
            DeviceGuard guard{dst_index};
            check_cuda(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, static_cast<size_t>(bytes), dst_stream),
                       "cudaMemcpyPeerAsync");
        }
        Event done{dst_index};
        done.record(dst_stream);
        done.wait(src_stream);
    }

    void synchronize(int index) override {
        DeviceGuard guard{index};
        check_cuda(cudaStreamSynchronize(current_stream(index)), "cudaStreamSynchronize");
    }

private:
    void keep_until_done(cudaStream_t stream, std::shared_ptr<void> buffer) {
        cudaEvent_t done = nullptr;
        check_cuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreateWithFlags");
        const cudaError_t status = cudaEventRecord(done, stream);
        if (status != cudaSuccess) {
            (void)cudaEventDestroy(done);
            // Without the event the buffer cannot be tracked: wait for the copy instead.
            (void)cudaStreamSynchronize(stream);
            check_cuda(status, "cudaEventRecord");
            return;
        }
        std::lock_guard lock{staged_mutex_};
        staged_.push_back({std::move(buffer), done});
    }

    // Returns the staging buffers whose copies finished to the pinned cache; never blocks.
    void reclaim_staged() {
        std::lock_guard lock{staged_mutex_};
        for (size_t i = 0; i < staged_.size();) {
            Staged& s = staged_[i];  // events are queried from any device's context
            const cudaError_t status = cudaEventQuery(s.done);
            if (status == cudaErrorNotReady) {
                (void)cudaGetLastError();
                ++i;
                continue;
            }
            check_cuda(status, "cudaEventQuery");
            (void)cudaEventDestroy(s.done);
            staged_[i] = std::move(staged_.back());
            staged_.pop_back();
        }
    }

    std::vector<std::shared_ptr<CachingAllocator>> allocators_;
    std::vector<std::unique_ptr<CudaKernels>> kernels_;
    std::mutex staged_mutex_;
    std::vector<Staged> staged_;
};

}  // namespace

int device_count() {
    // cudaGetDeviceCount creates no context; without a driver or device it fails: zero GPUs.
    static const int count = [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        return n;
    }();
    return count;
}

std::unique_ptr<Backend> make_cuda_backend() {
    const int count = device_count();
    RENSA_CHECK(count > 0, DeviceError,
                "cuda: no usable GPU (no CUDA driver, or no device visible to this process; see CUDA_VISIBLE_DEVICES)");
    return std::make_unique<CudaBackend>(count);
}

int install_backend(Context& context) {
    const int count = device_count();
    if (count == 0) return 0;
    if (!context.has_backend(DeviceKind::kCuda)) context.install_backend(make_cuda_backend());
    return count;
}

}  // namespace rensa::cuda
