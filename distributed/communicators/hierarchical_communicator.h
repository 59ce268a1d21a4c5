#pragma once
// HierarchicalCommunicator (chainermn's hierarchical): reductions of CUDA arrays in three
// steps: ncclReduce to the node's first rank (intra_rank 0) over an NCCL communicator of the
// node, MPI_Allreduce among the node leaders through host memory, ncclBroadcast back inside
// the node. Everything else as in pure_nccl, except bcast_data (it runs once) and allgather:
// over MPI.
// iallreduce_inplace of a CUDA buffer runs the three steps at once (the host staging needs
// the reduced node sum) and returns a finished request.

#include <memory>
#include <string>
#include <vector>

#include "distributed/communicators/pure_nccl_communicator.h"

namespace rensa::distributed {

class HierarchicalCommunicator : public PureNcclCommunicator {
public:
    // Collective over `handle`'s ranks: splits them into the node and the leaders (MPI).
    HierarchicalCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options);
    std::string name() const override { return "hierarchical"; }

    [[nodiscard]] std::unique_ptr<Request> iallreduce_inplace(const Array& buffer,
                                                              ReduceOp op = ReduceOp::kSum) override;
    // Over MPI (the NCCL communicator spans only the node).
    [[nodiscard]] std::vector<Array> allgather(const Array& x) override;

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
    void bcast_arrays(const std::vector<Array>& arrays) override;
    detail::CommHandle& nccl_handle() const override { return *intra_; }
    void reduce_on_device(const Array& buffer, ReduceOp op, const std::string& collective) override;

private:
    std::shared_ptr<detail::CommHandle> intra_;  // the ranks of this node
    std::shared_ptr<detail::CommHandle> inter_;  // the node leaders; null on the other ranks
};

}  // namespace rensa::distributed
