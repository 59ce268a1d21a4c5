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
//
// Note [Stream pool]: a cudaStream_t value must name one CUDA stream for the process's
// life, because the caching allocator keys its bins by it (Note [Stream-ordered caching]
// in cuda/allocator.h): were a destroyed stream's handle value handed out again for a new
// stream, that stream could reuse a block cached by the old one while the old work still
// ran on it. So cuda::Stream never destroys its stream: the destructor gives it back to a
// pool per (device, priority) (leaked, like the default streams: see Note [Leaked pools]
// in cuda/keyed_pool.h), and the next Stream of that key takes it (the last one given
// back first). Blocks cached on it are reused in stream order, which is safe; events the
// allocator records on it at free time (record_stream) are recorded on a live stream.
// The cost: a new Stream may still run its predecessor's queued work first (its
// synchronize() waits for that too), and the process keeps as many streams as were ever
// alive at once. Streams made elsewhere (a user's cudaStream_t given to StreamScope) must
// outlive the blocks allocated on them, or be followed by empty_cache() once destroyed.

#include <cuda_runtime.h>

namespace rensa::cuda {

// The device's own stream (made on first use; lives until exit).
cudaStream_t default_stream(int device);
// The calling thread's current stream of `device`: the innermost StreamScope's, else default_stream.
cudaStream_t current_stream(int device);

// A non-blocking stream on one device, held for the object's life: taken from the pool of
// (device, priority) or made (see Note [Stream pool]), given back to the pool, never
// destroyed. Work queued on it still runs after the destructor.
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
    int priority_;
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
