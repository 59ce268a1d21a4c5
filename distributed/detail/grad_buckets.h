#pragma once
// Gradient buckets (internal): the one gradient path of every communicator, used by the
// multi-node optimizer and by Communicator::multi_node_mean_grad.
//
// Note [Gradient buckets]: the parameters are laid out, in the order given (the order in
// which backward finishes their grads, see Note [Bucket order] in multi_node_optimizer.cc),
// into buckets of about bucket_size_bytes per reduction dtype (a bucket closes once it
// reaches the size; one large parameter is one bucket). The buckets' buffers come from the
// communicator's BucketReducer (shared memory on one node, the GPU for NCCL). Each
// parameter's grad lives in its bucket: install_destinations() makes its slice the
// parameter's grad destination (Note [Gradient destinations] in autograd/backward.cc), so
// backward writes the grad there (linear's GEMMs directly) and the reduction runs in place:
// nothing is packed or unpacked, and the division by the number of ranks happens inside the
// reduction. A grad that is not in its slice when its bucket starts (a user-made array, the
// first step, double backprop) is copied in; a parameter without a grad contributes zeros.
// With allreduce_grad_dtype (float16, bfloat16) unlike the grads' dtype, each grad has an
// array of its own (its destination) and is cast into the half-size bucket when the bucket
// starts and cast back, already averaged, when it finishes: one pass each way.
// Buckets start strictly in index order on every rank (collectives match by order): a
// bucket whose grads are all final waits until its predecessors have started. The layout
// depends only on the order, names, shapes and dtypes, so it is the same on every rank.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/array.h"
#include "distributed/communicator.h"
#include "distributed/detail/bucket_reducer.h"
#include "links/parameter.h"

namespace rensa::distributed::detail {

using NamedParams = std::vector<std::pair<std::string, links::Parameter>>;

// Initialised parameters of `link` (with updates enabled when `updating_only`), by name.
[[nodiscard]] NamedParams sorted_params(const links::Link& link, bool updating_only);

class GradBuckets {
public:
    // Lays out `params` (in this order; defined, initialised) as Note [Gradient buckets] says
    // and makes the buffers through comm.make_bucket_reducer (collective: every rank must pass
    // the same layout). Grads are reduced in comm.options().allreduce_grad_dtype when given.
    GradBuckets(NamedParams params, Communicator& comm, int64_t bucket_size_bytes);
    // Waits for the requests still in flight (their buffers must outlive them).
    ~GradBuckets();
    GradBuckets(const GradBuckets&) = delete;
    GradBuckets& operator=(const GradBuckets&) = delete;

    // True when `params` are the same parameters, in the same order, with the same shapes,
    // dtypes and devices as the layout.
    [[nodiscard]] bool matches(const NamedParams& params) const;
    size_t bucket_count() const { return buckets_.size(); }
    // Buckets started this step (always a prefix) and whether all were.
    size_t started() const { return started_; }
    bool all_started() const { return started_ == buckets_.size(); }

    // Makes each parameter's slot its grad destination (backward then fills the buckets).
    void install_destinations() const;
    // Starts a step: waits for what is still in flight, then no grad is final.
    void reset();
    // The leaf-grad hook: `leaf`'s grad is final. Starts, in order, every bucket that is
    // complete and whose predecessors started, then drives the requests in flight. Leaves
    // that are not bucketed parameters, and second reports, are ignored.
    void grad_ready(const Variable& leaf);
    // Starts every bucket not started yet, in order.
    void start_all();
    // Drives the requests in flight (the reduction's work and MPI progress); never blocks.
    void progress();
    // Waits for every bucket (all started) and leaves each parameter's grad = the mean over
    // the ranks, an alias of its slot. A parameter that had no grad on this rank when its
    // bucket started gets None unless zero_fill.
    void finish(bool zero_fill);

private:
    struct Slot {
        links::Parameter param;
        size_t bucket = 0;
        int64_t offset = 0;  // elements from the bucket buffer's start
        Array view;          // the slot in the bucket, in the parameter's shape
        Array grad_array;    // the grad's home: `view`, or an array of its own (casts, devices)
        bool ready = false;  // its grad is final this step
        bool had_grad = false;
    };
    struct Bucket {
        std::vector<size_t> slots;
        size_t pending = 0;  // slots whose grad is not final yet
        std::unique_ptr<Request> request;
    };
    void layout(const NamedParams& params, int64_t bucket_size_bytes, std::optional<Dtype> reduce_dtype);
    void make_buffers(Communicator& comm, Device device);
    void start(size_t index);
    void start_ready();
    void write_back(const Bucket& bucket, bool zero_fill);

    std::vector<std::string> names_;
    std::vector<Slot> slots_;
    std::vector<BucketSpec> specs_;
    std::vector<Bucket> buckets_;
    std::unique_ptr<BucketReducer> reducer_;
    std::unordered_map<const VariableNode*, size_t> slot_of_;  // by graph node, refreshed by reset()
    size_t started_ = 0;                                       // buckets 0..started_-1 started this step
    size_t finished_ = 0;                                      // buckets 0..finished_-1 known finished
};

}  // namespace rensa::distributed::detail
