#pragma once
// Streams and events of the CUDA backend.
//
// Note [Streams]: every GPU has one stream of its own (non-blocking, made on first use),
// and every kernel, copy and allocation of the backend is ordered on the calling thread's
// *current* stream of that device: the device's own stream unless a StreamScope says
// otherwise (communication streams, user streams). The caching allocator tags each block
// with the stream current at allocation and reuses it on that stream without any device
// synchronisation (see Note [Stream-ordered caching] in cuda/allocator.h). Nothing in this
// backend synchronises a device except the calls whose contract says so (copies to the
// host, Backend::synchronize, empty_cache).

#include <cuda_runtime.h>

namespace rensa::cuda {

// The device's own stream (made on first use; lives until exit).
cudaStream_t default_stream(int device);
// The calling thread's current stream of `device`: the innermost StreamScope's, else default_stream.
cudaStream_t current_stream(int device);

// An owned non-blocking stream on one device.
class Stream {
public:
    explicit Stream(int device, int priority = 0);
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    cudaStream_t get() const { return stream_; }
    int device() const { return device_; }
    // Blocks the host until the work queued so far is done.
    void synchronize() const;

private:
    int device_;
    cudaStream_t stream_ = nullptr;
};

// Makes `stream` the calling thread's current stream of `device` for the scope's life.
class StreamScope {
public:
    StreamScope(int device, cudaStream_t stream);
    ~StreamScope();
    StreamScope(const StreamScope&) = delete;
    StreamScope& operator=(const StreamScope&) = delete;

private:
    int device_;
    cudaStream_t previous_;
};

// An owned event (timing disabled) on one device: cross-stream ordering without the host.
class Event {
public:
    explicit Event(int device);
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    void record(cudaStream_t stream);
    // Work queued on `stream` after this call waits for the recorded point.
    void wait(cudaStream_t stream) const;
    // True when the recorded work finished (or nothing was recorded).
    bool query() const;
    void synchronize() const;
    cudaEvent_t get() const { return event_; }

private:
    int device_;
    cudaEvent_t event_ = nullptr;
};

}  // namespace rensa::cuda
