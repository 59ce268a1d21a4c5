#pragma once
// PureNcclCommunicator (chainermn's pure_nccl): the array collectives that carry CUDA
// arrays of the same shape on every rank go through NCCL on a communication stream; the
// rest (native arrays, object level, per-rank shapes) go through MPI as in "flat".
//
// Note [pure_nccl]: the NCCL communicator is created lazily, by the first collective that
// touches a CUDA array, on that array's GPU (so after the user chose the device): rank 0
// calls ncclGetUniqueId, the id goes out by MPI_Bcast, every rank calls ncclCommInitRank.
// Through NCCL: allreduce, allreduce_inplace and iallreduce_inplace on CUDA arrays (kMean:
// sum, then divide as on the MPI path), bcast_data of CUDA parameters (ncclBroadcast), and
// the gradient buckets of CUDA parameters (Note [Gradient buckets]): the buckets live on the
// parameters' GPU and each is one ncclAllReduce with ncclAvg, in place, so the division is
// NCCL's (allreduce_grad_dtype float16/bfloat16 halves the traffic of float32 grads, NCCL
// reducing in its native types). The compute stream waits on the communication stream by an event,
// never the host (see Note [NCCL watch] in distributed/detail/nccl_comm.h for the fault
// handling). allgather goes through NCCL when every rank passes a CUDA array of one shape
// and dtype. bcast, gather, scatter, alltoall, send and recv allow per-rank shapes or
// undefined inputs, so they stay on the MPI path (through host memory).
// split() gives a communicator of the same kind with its own lazily created NCCL comm.

#include <memory>
#include <string>
#include <vector>

#include "distributed/communicators/flat_communicator.h"

namespace rensa::distributed {

namespace detail {
class NcclComm;
}

class PureNcclCommunicator : public FlatCommunicator {
public:
    // Collective over `handle`'s ranks (MPI only: NCCL starts at the first CUDA collective).
    PureNcclCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options);
    ~PureNcclCommunicator() override;
    std::string name() const override { return "pure_nccl"; }

    [[nodiscard]] Array allreduce(const Array& x, ReduceOp op = ReduceOp::kSum) override;
    // Contiguous native buffers (MPI) or contiguous CUDA buffers (NCCL).
    void allreduce_inplace(const Array& buffer, ReduceOp op = ReduceOp::kSum) override;
    [[nodiscard]] std::unique_ptr<Request> iallreduce_inplace(const Array& buffer,
                                                              ReduceOp op = ReduceOp::kSum) override;
    // ncclAllGather when every rank passes a CUDA array of the same shape and dtype (agreed
    // by one small MPI exchange first), else the MPI path. The results are views of rows of
    // one device buffer.
    [[nodiscard]] std::vector<Array> allgather(const Array& x) override;
    // Waits (with the watch's deadline) for the NCCL collectives in flight, then MPI_Barrier.
    void barrier() override;

    // The parameters' GPU for CUDA parameters (NCCL reduces there), else host memory.
    [[nodiscard]] Device bucket_device(Device params_device) const override;
    // CUDA buckets: one ncclAllReduce (ncclAvg) each; host buckets: as "flat".
    [[nodiscard]] std::unique_ptr<detail::BucketReducer> make_bucket_reducer(
        const std::vector<detail::BucketSpec>& specs, Device device) override;

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
    void bcast_arrays(const std::vector<Array>& arrays) override;

    // The ranks the NCCL communicator spans (all of them here; the node for hierarchical).
    virtual detail::CommHandle& nccl_handle() const { return handle(); }
    // The NCCL communicator on `device`, created on first use (collective).
    detail::NcclComm& nccl(Device device);
    // Reduces the contiguous CUDA `buffer` over every rank in place (ordered on the compute
    // stream); kMean divides by size(). `collective` names it in errors.
    virtual void reduce_on_device(const Array& buffer, ReduceOp op, const std::string& collective);
    // Whether `arrays` are all CUDA arrays on one GPU (and at least one).
    static bool on_one_gpu(const std::vector<Array>& arrays);
    // Starts the in-place mean of a gradient bucket on the GPU (hierarchical: three steps).
    [[nodiscard]] virtual std::unique_ptr<Request> start_bucket(const Array& bucket);
    class NcclBucketReducer;

    std::shared_ptr<detail::NcclComm> nccl_;  // null until the first CUDA collective
};

}  // namespace rensa::distributed
