#pragma once
// HierarchicalCommunicator (chainermn's hierarchical): gradient buckets reduced in two
// levels, inside each node and then between the nodes.
//   Host buckets (CPU parameters; every build): shared memory inside the node, then a ring
//     among the ranks of the same node rank on every node, each rank handling its slice of
//     every bucket (see Note [Shared-memory buckets] in distributed/detail/
//     mpi_bucket_reducer.cc). Nodes of unequal size, or one rank per node, fall back to
//     flat's algorithm.
//   CUDA buckets and arrays (built with NCCL): ncclReduce to the node's first rank (intra_rank
//     0) over an NCCL communicator of the node (gradient buckets take the node's mean,
//     ncclAvg, and the leaders scale their sum by 1 / nodes while it is on the host), MPI_Allreduce among the node
//     leaders through host memory, ncclBroadcast back inside the node. Everything else as in pure_nccl, except
//     bcast_data (it runs once) and allgather: over MPI. iallreduce_inplace of a CUDA buffer
//     runs the three steps at once (the host staging needs the reduced node sum) and
//     returns a finished request.

#include <memory>
#include <string>
#include <vector>

#ifdef RENSA_HAVE_NCCL
#include "distributed/communicators/pure_nccl_communicator.h"
#else
#include "distributed/communicators/flat_communicator.h"
#endif

namespace rensa::distributed {

#ifdef RENSA_HAVE_NCCL
using HierarchicalBase = PureNcclCommunicator;
#else
using HierarchicalBase = FlatCommunicator;
#endif

class HierarchicalCommunicator : public HierarchicalBase {
public:
    // Collective over `handle`'s ranks: splits them into the node and the leaders (MPI).
    HierarchicalCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options);
    std::string name() const override { return "hierarchical"; }
    // Host buckets: the two-level algorithm above; CUDA buckets (NCCL build): NCCL's.
    [[nodiscard]] std::unique_ptr<detail::BucketReducer> make_bucket_reducer(
        const std::vector<detail::BucketSpec>& specs, Device device) override;

#ifdef RENSA_HAVE_NCCL
    [[nodiscard]] std::unique_ptr<Request> iallreduce_inplace(const Array& buffer,
                                                              ReduceOp op = ReduceOp::kSum) override;
    // Over MPI (the NCCL communicator spans only the node).
    [[nodiscard]] std::vector<Array> allgather(const Array& x) override;
#endif

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
#ifdef RENSA_HAVE_NCCL
    void bcast_arrays(const std::vector<Array>& arrays) override;
    detail::CommHandle& nccl_handle() const override { return *intra_handle_; }
    void reduce_on_device(const Array& buffer, ReduceOp op, const std::string& collective) override;
    [[nodiscard]] std::unique_ptr<Request> start_bucket(const Array& bucket) override;
    // The three steps on `buffer`; with node_mean the result is the mean over the ranks
    // (ncclAvg in the node, the leaders' sum scaled by 1 / nodes), else the `op` reduction.
    void reduce_in_steps(const Array& buffer, ReduceOp op, const std::string& collective, bool node_mean);

private:
    std::shared_ptr<detail::CommHandle> leaders_;  // the node leaders; null on the other ranks
#endif
};

}  // namespace rensa::distributed
