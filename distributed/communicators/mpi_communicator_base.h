#pragma once
// MpiCommunicatorBase (chainermn's MpiCommunicatorBase): the array-, object- and
// model-level collectives over one MPI communicator, shared by every communicator.
// Gradients take the one bucket path (Note [Gradient buckets]); subclasses choose where
// the buckets live and how they are reduced (make_bucket_reducer), and how bcast_data
// moves the parameters.

#include <memory>
#include <string>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed {

namespace detail {
class GradBuckets;
class IallreduceLane;
}  // namespace detail

class MpiCommunicatorBase : public Communicator {
public:
    [[nodiscard]] Array allreduce(const Array& x, ReduceOp op = ReduceOp::kSum) override;
    void allreduce_inplace(const Array& buffer, ReduceOp op = ReduceOp::kSum) override;
    [[nodiscard]] std::unique_ptr<Request> iallreduce_inplace(const Array& buffer,
                                                              ReduceOp op = ReduceOp::kSum) override;
    [[nodiscard]] Array bcast(const Array& x, int root = 0) override;
    [[nodiscard]] std::vector<Array> gather(const Array& x, int root = 0) override;
    [[nodiscard]] std::vector<Array> allgather(const Array& x) override;
    [[nodiscard]] Array scatter(const std::vector<Array>& xs, int root = 0) override;
    [[nodiscard]] std::vector<Array> alltoall(const std::vector<Array>& xs) override;
    void send(const Array& x, int dest, int tag = 0) override;
    [[nodiscard]] Array recv(int source, int tag = 0) override;
    [[nodiscard]] CommunicatorPtr split(int color, int key) override;

    [[nodiscard]] std::string bcast_obj(const std::string& obj, int root = 0) override;
    [[nodiscard]] std::vector<std::string> gather_obj(const std::string& obj, int root = 0) override;
    [[nodiscard]] std::vector<std::string> allgather_obj(const std::string& obj) override;
    void send_obj(const std::string& obj, int dest, int tag = 0) override;
    [[nodiscard]] std::string recv_obj(int source, int tag = 0) override;

    void bcast_data(links::Link& link) override;
    void multi_node_mean_grad(links::Link& link, bool zero_fill = false) override;
    void barrier() override;

    // Host buffers: one process, or shared memory when all ranks are on one node, else a
    // ring over every rank (see Note [Shared-memory buckets] in mpi_bucket_reducer.cc).
    [[nodiscard]] std::unique_ptr<detail::BucketReducer> make_bucket_reducer(
        const std::vector<detail::BucketSpec>& specs, Device device) override;

    // The MPI communicator (a dup owned by rensa) with its watchdog registration.
    detail::CommHandle& handle() const { return *handle_; }

protected:
    // Takes over `handle`; collective (computes the intra/inter topology).
    MpiCommunicatorBase(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options);
    ~MpiCommunicatorBase() override;

    // A communicator of the same kind over `handle` (for split).
    [[nodiscard]] virtual CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const = 0;
    // Broadcasts `arrays` (sorted by name, identical layout on every rank) from rank 0 in
    // place. Default: one bcast per array.
    virtual void bcast_arrays(const std::vector<Array>& arrays);
    // The host-memory reducer: shared memory inside each node and a ring between nodes when
    // node_aware (hierarchical; nodes of equal size), else flat (shared memory when all
    // ranks are on one node, otherwise a ring over all).
    [[nodiscard]] std::unique_ptr<detail::BucketReducer> make_host_reducer(const std::vector<detail::BucketSpec>& specs,
                                                                           bool node_aware);

    std::shared_ptr<detail::CommHandle> intra_handle_;  // this node's ranks
    std::shared_ptr<detail::CommHandle> inter_handle_;  // the ranks of this intra rank on every node
    bool uniform_nodes_ = true;                         // every node has intra_size ranks

    // In-place reduction of a contiguous native buffer without a guard (the caller holds it);
    // with `input` (contiguous native, same shape and dtype) reduces input into buffer.
    void allreduce_raw(const Array& buffer, ReduceOp op, const Array& input = {}) const;
    // allreduce_raw behind the signature check of the guard's operation (Note [Signature check] in
    // distributed/detail/signature_check.cc): a reduction that fits travels inside the envelope.
    void checked_allreduce(const detail::OpGuard& guard, const detail::CallSignature& signature, const Array& buffer,
                           ReduceOp op, const Array& input = {}) const;
    // The signature check alone, first thing inside the guard of a collective; MpiError on every
    // rank when they disagree. Nothing when the check is off or the communicator has one rank.
    void check_call(const detail::OpGuard& guard, const detail::CallSignature& signature) const;

private:
    void check_rank(int r, const char* op, const char* what) const;
    std::shared_ptr<detail::CommHandle> handle_;
    // Where iallreduce_inplace's data go (Note [Checked iallreduce]); made by the first one.
    std::shared_ptr<detail::IallreduceLane> iallreduce_lane_;
    // multi_node_mean_grad's buckets of the last few links, most recent last.
    std::vector<std::unique_ptr<detail::GradBuckets>> mean_grad_buckets_;
};

}  // namespace rensa::distributed
