#pragma once
// How a communicator reduces gradient buckets (internal): the memory the buckets live in
// and the in-place mean of one bucket over the ranks. See Note [Gradient buckets] in
// distributed/detail/grad_buckets.h for the component that uses it.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/array.h"
#include "distributed/communicator.h"

namespace rensa::distributed::detail {

class CommHandle;

// One bucket: a float dtype and a number of elements.
struct BucketSpec {
    Dtype dtype = Dtype::kFloat32;
    int64_t elements = 0;
};

// The buffers of a set of buckets and their reduction. Made collectively (every rank asks
// for the same specs in the same order); destroyed locally.
class BucketReducer {
public:
    virtual ~BucketReducer() = default;
    // One 1-D contiguous buffer per spec, in the reducer's memory (shared memory for the MPI
    // reducer on one node, the GPU for NCCL). The reduction runs in place on them.
    const std::vector<Array>& buffers() const { return buffers_; }
    // Starts the mean of bucket `index` over the ranks, in place: each element becomes the
    // sum over the ranks times the reducer's scale (1/size; 1 for "dummy"), the scale
    // applied inside the reduction (no pass of its own). Every rank starts the buckets in
    // the same order, each at most once until its request finished. The request's wait()
    // returns once this rank's buffer holds the result; destroying it unfinished waits.
    [[nodiscard]] virtual std::unique_ptr<Request> start(size_t index) = 0;

protected:
    std::vector<Array> buffers_;
};

// Plain buffers and nothing to reduce: one process, or the "dummy" communicator (which
// measures the gradient path without communication). Its requests are finished at once.
[[nodiscard]] std::unique_ptr<BucketReducer> make_local_bucket_reducer(const std::vector<BucketSpec>& specs,
                                                                       Device device);

// Which algorithm the MPI reducer runs (RENSA_BUCKET_TRANSPORT for measurements; see Note
// [Shared-memory buckets] in mpi_bucket_reducer.cc).
enum class BucketTransport { kAuto, kRing, kMpi };
BucketTransport bucket_transport_from_env();

// The MPI reducer over `world` (the communicator's handle). `node` is this rank's node (the
// ranks that share memory): with more than one rank the buckets live in shared memory and
// each rank reduces a slice of every bucket; `across` (ranks of the same node rank on the
// other nodes, or null) then reduces the slices between nodes with a ring; without a node
// group the whole bucket goes round a ring over `world`. Collective over `world`.
[[nodiscard]] std::unique_ptr<BucketReducer> make_mpi_bucket_reducer(const std::vector<BucketSpec>& specs,
                                                                     CommHandle& world,
                                                                     const std::shared_ptr<CommHandle>& node,
                                                                     const std::shared_ptr<CommHandle>& across,
                                                                     BucketTransport transport);

}  // namespace rensa::distributed::detail
