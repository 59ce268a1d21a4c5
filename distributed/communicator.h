#pragma once
// Communicators (chainermn.CommunicatorBase): the collectives of a group of processes
// launched by mpiexec, at three levels.
//   array level:  allreduce, bcast, gather, allgather, scatter, alltoall, send, recv, split;
//                 any dtype and device (non-native arrays go through host memory);
//                 messages over INT_MAX elements are chunked.
//   object level: byte strings (serialised objects), chunked so payloads over 2 GiB work.
//   model level:  bcast_data(link), multi_node_mean_grad(link) (allreduce_grad).
//
// Every collective must be called by every rank of the communicator, in the same order
// (see Note [Collective order] in distributed/detail/mpi_runtime.h); a rank that dies or
// stalls ends the job with an error naming it and the collective, never a hang. Ranks that
// call different collectives (operation, dtype, element count, root or reduction) all raise
// MpiError naming both calls (Note [Signature check] in distributed/detail/signature_check.cc;
// array and object level of the MPI communicators, not NCCL's CUDA paths).
//
// Communicator objects are shared between the optimizer, evaluator and user code through
// CommunicatorPtr. They are not thread-safe: call them from one thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/array.h"
#include "core/error.h"
#include "links/link.h"

namespace rensa::distributed {

namespace detail {
class BucketReducer;
struct BucketSpec;
}  // namespace detail

// MPI and NCCL failures, and rank disagreements found by the debug checks.
class MpiError : public Error {
public:
    using Error::Error;
};

enum class ReduceOp { kSum, kMean, kMax, kMin };
std::string to_string(ReduceOp op);

struct CommunicatorOptions {
    // Dtype in which gradients are reduced by multi_node_mean_grad (Chainer's
    // allreduce_grad_dtype): nullopt reduces each grad in its own dtype; float32 reduces
    // float16/bfloat16 grads in float32 (cast, reduce, cast back).
    std::optional<Dtype> allreduce_grad_dtype = std::nullopt;
    // Debug mode: before each collective every rank checks that all ranks call the same
    // operation with the same shapes and dtypes (MpiError on every rank naming both sides
    // and the disagreeing rank), one extra round trip each; the always-on check compares
    // element counts, not shapes. Also switched on by RENSA_DISTRIBUTED_DEBUG=1.
    bool debug = false;
};

// A non-blocking collective in flight (iallreduce). wait() finishes it; test() drives
// progress and says whether it finished. Destroying an unfinished request waits.
class Request {
public:
    virtual ~Request() = default;
    virtual void wait() = 0;
    virtual bool test() = 0;
};

class Communicator;
using CommunicatorPtr = std::shared_ptr<Communicator>;

class Communicator {
public:
    virtual ~Communicator() = default;
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;

    // "naive", "flat", "dummy", ...
    virtual std::string name() const = 0;

    // Topology. intra: ranks on this node (MPI_Comm_split_type SHARED); inter: this node's
    // index among the nodes (ranks split by intra_rank).
    int rank() const { return rank_; }
    int size() const { return size_; }
    int intra_rank() const { return intra_rank_; }
    int intra_size() const { return intra_size_; }
    int inter_rank() const { return inter_rank_; }
    int inter_size() const { return inter_size_; }
    const CommunicatorOptions& options() const { return options_; }

    // --- array level ---------------------------------------------------------------------
    // Elementwise reduction of x (same shape and dtype on every rank) over the ranks; a new
    // array on x's device. kMean divides by size() (integer dtypes: floor division).
    [[nodiscard]] virtual Array allreduce(const Array& x, ReduceOp op = ReduceOp::kSum) = 0;
    // In place on a contiguous native `buffer` (what gradient buckets use); the NCCL
    // communicators also take contiguous CUDA buffers.
    virtual void allreduce_inplace(const Array& buffer, ReduceOp op = ReduceOp::kSum) = 0;
    // Non-blocking allreduce_inplace: `buffer` must stay alive and untouched until the
    // request finished. Requests finish in the order they were started. Only the first call on
    // a communicator waits for the other ranks to start theirs (it makes the MPI communicator
    // the data travel on: Note [Checked iallreduce] in distributed/communicators/detail/iallreduce.cc).
    [[nodiscard]] virtual std::unique_ptr<Request> iallreduce_inplace(const Array& buffer,
                                                                      ReduceOp op = ReduceOp::kSum) = 0;
    // Root's x to every rank (shape and dtype travel too; x may be undefined elsewhere).
    [[nodiscard]] virtual Array bcast(const Array& x, int root = 0) = 0;
    // Each rank's x (shapes may differ), in rank order, on root; empty elsewhere.
    [[nodiscard]] virtual std::vector<Array> gather(const Array& x, int root = 0) = 0;
    // Each rank's x (shapes may differ), in rank order, on every rank.
    [[nodiscard]] virtual std::vector<Array> allgather(const Array& x) = 0;
    // Root's xs[i] (xs.size() == size() on root, ignored elsewhere) to rank i.
    [[nodiscard]] virtual Array scatter(const std::vector<Array>& xs, int root = 0) = 0;
    // xs[j] to rank j (xs.size() == size()); returns what each rank sent here, in rank order.
    [[nodiscard]] virtual std::vector<Array> alltoall(const std::vector<Array>& xs) = 0;
    // Point to point (shape and dtype travel with the data).
    virtual void send(const Array& x, int dest, int tag = 0) = 0;
    [[nodiscard]] virtual Array recv(int source, int tag = 0) = 0;
    // MPI_Comm_split: a new communicator of the same kind over the ranks with `color`,
    // ordered by key (then old rank). Collective.
    [[nodiscard]] virtual CommunicatorPtr split(int color, int key) = 0;

    // --- object level (byte strings) -----------------------------------------------------
    [[nodiscard]] virtual std::string bcast_obj(const std::string& obj, int root = 0) = 0;
    // On root: every rank's bytes in rank order; elsewhere empty.
    [[nodiscard]] virtual std::vector<std::string> gather_obj(const std::string& obj, int root = 0) = 0;
    [[nodiscard]] virtual std::vector<std::string> allgather_obj(const std::string& obj) = 0;
    // Folds every rank's bytes in rank order with `combine` (same result on every rank).
    using Combine = std::function<std::string(const std::string&, const std::string&)>;
    [[nodiscard]] std::string allreduce_obj(const std::string& obj, const Combine& combine);
    // Scalar shortcut used by evaluators and triggers.
    [[nodiscard]] double allreduce_obj(double value, ReduceOp op = ReduceOp::kSum);
    virtual void send_obj(const std::string& obj, int dest, int tag = 0) = 0;
    [[nodiscard]] virtual std::string recv_obj(int source, int tag = 0) = 0;

    // --- model level ---------------------------------------------------------------------
    // Broadcasts the parameters (and persistent arrays) of `link` from rank 0, in sorted
    // name order. First checks that every rank has the same initialised parameter names and
    // shapes: MpiError on every rank naming the first difference and the rank.
    virtual void bcast_data(links::Link& link) = 0;
    // Averages the grads of `link`'s initialised parameters over the ranks, through gradient
    // buckets kept for the link (Note [Gradient buckets]): afterwards each grad aliases its
    // slot in a bucket and is the parameter's grad destination, so the next backward writes
    // straight into the bucket (hold a copy to keep a grad across steps). A parameter
    // without a grad counts as zeros; it gets the mean when zero_fill, else stays None.
    virtual void multi_node_mean_grad(links::Link& link, bool zero_fill = false) = 0;
    // Chainer's older name of multi_node_mean_grad.
    void allreduce_grad(links::Link& link, bool zero_fill = false) { multi_node_mean_grad(link, zero_fill); }

    // --- gradient buckets (see Note [Gradient buckets] in distributed/detail/grad_buckets.h) --
    // The buffers of a set of gradient buckets on `device` (what bucket_device answered) and
    // their in-place mean over the ranks. Collective: every rank passes the same specs.
    [[nodiscard]] virtual std::unique_ptr<detail::BucketReducer> make_bucket_reducer(
        const std::vector<detail::BucketSpec>& specs, Device device) = 0;
    // Where the buckets of parameters on `params_device` live: host memory for MPI, the GPU
    // for the NCCL communicators.
    [[nodiscard]] virtual Device bucket_device(Device /*params_device*/) const { return Device::native(); }
    // The bucket size used when `requested` bytes were asked for ("naive": one parameter per
    // bucket, ChainerMN's one all-reduce per parameter).
    [[nodiscard]] virtual int64_t bucket_bytes(int64_t requested) const { return requested; }

    // Waits until every rank arrived.
    virtual void barrier() = 0;

protected:
    Communicator() = default;
    int rank_ = 0, size_ = 1;
    int intra_rank_ = 0, intra_size_ = 1;
    int inter_rank_ = 0, inter_size_ = 1;
    CommunicatorOptions options_{};
};

// chainermn.create_communicator. "naive" (one bucket per parameter: an all-reduce each),
// "flat" (buckets of grads, shared memory on one node, a ring over all ranks otherwise),
// "hierarchical" (buckets reduced in the node, then between nodes: shared memory and a ring
// of the node leaders' slices for host buckets; NCCL in the node and MPI among the nodes for
// CUDA ones), "dummy" (the gradient path without communication: measures its cost; behaves
// as size 1 for the grads but reports the real topology), "pure_nccl" (CUDA arrays reduced
// by NCCL, see Note [pure_nccl]; needs the CUDA build with NCCL, MpiError saying so
// without it). The NCCL ones start NCCL at their first collective on a CUDA array and take
// MPI for the rest. Any other name: ValueError listing the names. Initialises MPI on first
// use (never at load time).
[[nodiscard]] CommunicatorPtr create_communicator(const std::string& name = "flat", CommunicatorOptions options = {});

}  // namespace rensa::distributed
