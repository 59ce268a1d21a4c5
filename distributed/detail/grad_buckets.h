#pragma once
// Gradient buckets of the multi-node optimizer (internal): the parameters' grads grouped
// into a few contiguous buffers whose non-blocking all-reduce can start while backward()
// still runs.
//
// Note [Gradient buckets]: the parameters (initialised, updates enabled) are taken in
// *descending* name order and grouped, per reduction dtype, into buckets of about
// bucket_size_bytes (a bucket closes once it reaches the size; one large parameter is one
// bucket). Descending, because backward() finishes the last layers first and Chainer's
// names usually grow with depth ("l1" < "l2"), so bucket 0 tends to be ready first. The
// layout depends only on the names, shapes and dtypes, so it is the same on every rank.
// Buckets start strictly in index order on every rank (MPI matches collectives by order):
// a bucket whose grads are all final waits until its predecessors have started.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/array.h"
#include "distributed/communicator.h"
#include "links/parameter.h"

namespace rensa::distributed::detail {

using NamedParams = std::vector<std::pair<std::string, links::Parameter>>;

// Which parameters go into buckets: initialised ones with updates enabled, sorted by name.
[[nodiscard]] NamedParams bucketed_params(const links::Link& link);

class GradBuckets {
public:
    // Lays out `params` (see bucketed_params) as Note [Gradient buckets] says. Grads are
    // reduced in `reduce_dtype` when given (allreduce_grad_dtype), else in their own dtype.
    // The bucket buffers live on `buffer_device`: native for the MPI communicators, the
    // parameters' GPU for the NCCL ones (their iallreduce_inplace takes CUDA buffers).
    GradBuckets(NamedParams params, int64_t bucket_size_bytes, std::optional<Dtype> reduce_dtype,
                Device buffer_device = Device::native());
    // Waits for the requests still in flight (their buffers must outlive them).
    ~GradBuckets();
    GradBuckets(const GradBuckets&) = delete;
    GradBuckets& operator=(const GradBuckets&) = delete;

    // True when `params` has the layout these buckets were built for (names, shapes, dtypes).
    [[nodiscard]] bool matches(const NamedParams& params) const;
    size_t bucket_count() const { return buckets_.size(); }
    // Requests started and not yet known to be finished.
    size_t in_flight() const { return started_ - finished_; }
    // Buckets started this step (always a prefix: 0..started()-1).
    size_t started() const { return started_; }
    // Every bucket was started this step (what finish() needs).
    bool all_started() const { return started_ == buckets_.size(); }

    // Starts a step: waits for what is still in flight, then no grad is final.
    void reset();
    // The leaf-grad hook: `leaf`'s grad is final. Starts, in order, every bucket that is
    // complete and whose predecessors started, then drives the oldest request. Leaves that
    // are not bucketed parameters are ignored; a second report of one is ignored.
    void grad_ready(const Variable& leaf, Communicator& comm);
    // Starts every bucket not started yet, in order; grads still missing count as zeros.
    void start_all(Communicator& comm);
    // Drives the requests in flight (MPI progress); never blocks.
    void progress();
    // Waits for every started request and writes each grad = reduced sum * scale. A
    // parameter that had no grad on this rank when packed gets None unless zero_fill.
    void finish(double scale, bool zero_fill);

private:
    struct Slot {
        links::Parameter param;
        size_t bucket = 0;
        int64_t offset = 0;  // elements from the bucket buffer's start
        bool ready = false;
        bool had_grad = false;
    };
    struct Bucket {
        Dtype dtype = Dtype::kFloat32;
        std::vector<size_t> slots;
        int64_t elements = 0;
        Array buffer;
        size_t pending = 0;  // slots whose grad is not final yet
        std::unique_ptr<Request> request;
    };
    void layout(const NamedParams& params, int64_t bucket_size_bytes, std::optional<Dtype> reduce_dtype);
    void start(size_t index, Communicator& comm);
    void start_ready(Communicator& comm);
    void unpack(const Bucket& bucket, double scale, bool zero_fill);

    struct Entry {
        std::string name;
        Shape shape;
        Dtype dtype;
    };
    Device device_ = Device::native();  // where the bucket buffers live
    std::vector<Entry> layout_of_;      // what matches() compares
    std::vector<Slot> slots_;
    std::vector<Bucket> buckets_;
    std::unordered_map<const VariableNode*, size_t> slot_of_;  // by graph node, refreshed by reset()
    size_t started_ = 0;                                       // buckets 0..started_-1 were started this step
    size_t finished_ = 0;                                      // buckets 0..finished_-1 are known to be finished
};

}  // namespace rensa::distributed::detail
