#include "cuda/stream.h"

#include <array>
#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "core/error.h"
#include "cuda/check.h"
#include "cuda/device_guard.h"
#include "cuda/keyed_pool.h"

namespace rensa::cuda {
namespace {

constexpr int kMaxDevices = 64;

void check_device_index(int device) {
    RENSA_CHECK(device >= 0 && device < kMaxDevices, DeviceError, "cuda:", device, ": device index out of range");
}

// The devices' own streams. Never destroyed (see Note [Streams]): destroying a stream at
// static-destruction time, after the CUDA runtime has unloaded, crashes; the driver
// reclaims them at exit.
struct DefaultStreams {
    std::mutex mutex;
    std::array<std::atomic<cudaStream_t>, kMaxDevices> streams{};
};

DefaultStreams& default_streams() {
    static auto* streams = new DefaultStreams;  // leaked deliberately, see above
    return *streams;
}

// The calling thread's StreamScope streams; nullptr means "the device's own stream".
std::vector<cudaStream_t>& thread_current_streams() {
    thread_local std::vector<cudaStream_t> current(kMaxDevices, nullptr);
    return current;
}

// The streams of destroyed cuda::Streams by (device, priority), leaked (see Note [Stream pool]).
KeyedPool<std::pair<int, int>, cudaStream_t>& stream_pool() {
    // Leaked deliberately (see Note [Leaked pools]).
    static auto* pool = new KeyedPool<std::pair<int, int>, cudaStream_t>;  // NOLINT(cppcoreguidelines-owning-memory)
    return *pool;
}

}  // namespace

cudaStream_t default_stream(int device) {
    check_device_index(device);
    DefaultStreams& all = default_streams();
    auto& slot = all.streams[static_cast<size_t>(device)];
    if (cudaStream_t stream = slot.load(std::memory_order_acquire)) return stream;
    std::lock_guard lock{all.mutex};
    if (cudaStream_t stream = slot.load(std::memory_order_acquire)) return stream;  // made by another thread
    DeviceGuard guard{device};
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    slot.store(stream, std::memory_order_release);
    return stream;
}

cudaStream_t current_stream(int device) {
    check_device_index(device);
    cudaStream_t stream = thread_current_streams()[static_cast<size_t>(device)];
    return stream != nullptr ? stream : default_stream(device);
}

Stream::Stream(int device, int priority) : device_{device}, priority_{priority} {
    check_device_index(device);
    stream_ = stream_pool().take({device_, priority_}, [this] {
        DeviceGuard guard{device_};
        cudaStream_t made = nullptr;
        check_cuda(cudaStreamCreateWithPriority(&made, cudaStreamNonBlocking, priority_),
                   "cudaStreamCreateWithPriority");
        return made;
    });
}

// No CUDA call, so nothing can fail here, even after the runtime unloaded; queued work
// still completes (see Note [Stream pool]).
Stream::~Stream() { stream_pool().give_back({device_, priority_}, stream_); }

void Stream::synchronize() const {
    DeviceGuard guard{device_};
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

// A null `stream` selects the device's own stream (the legacy default stream is never used).
StreamScope::StreamScope(int device, cudaStream_t stream) : device_{device} {
    check_device_index(device);
    cudaStream_t& slot = thread_current_streams()[static_cast<size_t>(device)];
    previous_ = slot;
    slot = stream;
}

StreamScope::~StreamScope() { thread_current_streams()[static_cast<size_t>(device_)] = previous_; }

Event::Event(int device) : device_{device} {
    DeviceGuard guard{device_};
    check_cuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
}

Event::~Event() {
    int previous = -1;
    if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
    if (previous != device_) (void)cudaSetDevice(device_);
    (void)cudaEventDestroy(event_);  // a pending record still completes
    if (previous >= 0 && previous != device_) (void)cudaSetDevice(previous);
    (void)cudaGetLastError();
}

void Event::record(cudaStream_t stream) {
    DeviceGuard guard{device_};
    check_cuda(cudaEventRecord(event_, stream), "cudaEventRecord");
}

void Event::wait(cudaStream_t stream) const {
    DeviceGuard guard{device_};
    check_cuda(cudaStreamWaitEvent(stream, event_, 0), "cudaStreamWaitEvent");
}

bool Event::query() const {
    DeviceGuard guard{device_};
    const cudaError_t status = cudaEventQuery(event_);
    if (status == cudaErrorNotReady) {
        (void)cudaGetLastError();  // not an error: the work is still running
        return false;
    }
    check_cuda(status, "cudaEventQuery");
    return true;
}

void Event::synchronize() const {
    DeviceGuard guard{device_};
    check_cuda(cudaEventSynchronize(event_), "cudaEventSynchronize");
}

}  // namespace rensa::cuda
