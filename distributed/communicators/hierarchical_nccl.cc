// The hierarchical communicator: NCCL inside the node, MPI among the node leaders.
#include "distributed/communicators/hierarchical_communicator.h"

#include "core/ops/elementwise.h"
#include "distributed/communicators/detail/mpi_chunks.h"
#include "distributed/communicators/detail/reduce_ops.h"
#include "distributed/detail/bucket_math.h"
#include "distributed/detail/nccl_check.h"
#include "distributed/detail/nccl_comm.h"

namespace rensa::distributed {
using detail::DoneRequest;
using detail::mpi_reduce;

// Parameters are broadcast once per training: the MPI path through host memory is enough.
void HierarchicalCommunicator::bcast_arrays(const std::vector<Array>& arrays) {
    FlatCommunicator::bcast_arrays(arrays);
}

std::vector<Array> HierarchicalCommunicator::allgather(const Array& x) { return FlatCommunicator::allgather(x); }

std::unique_ptr<Request> HierarchicalCommunicator::iallreduce_inplace(const Array& buffer, ReduceOp op) {
    if (!buffer.defined() || buffer.device().kind != DeviceKind::kCuda) {
        return PureNcclCommunicator::iallreduce_inplace(buffer, op);
    }
    allreduce_inplace(buffer, op);
    return std::make_unique<DoneRequest>();
}

void HierarchicalCommunicator::reduce_on_device(const Array& buffer, ReduceOp op, const std::string& collective) {
    reduce_in_steps(buffer, op, collective, /*node_mean=*/false);
    if (op == ReduceOp::kMean) detail::divide_inplace(buffer, size_);
}

// A gradient bucket: the three steps, the mean taken by the node reduction (ncclAvg) and, with
// several nodes, by the leaders' host staging (no pass of its own on the GPU).
std::unique_ptr<Request> HierarchicalCommunicator::start_bucket(const Array& bucket) {
    const detail::OpGuard guard{handle(), {.op = "bucket_allreduce", .dtype = bucket.dtype(), .shape = bucket.shape()}};
    reduce_in_steps(bucket, ReduceOp::kSum, "bucket_allreduce", /*node_mean=*/true);
    return std::make_unique<DoneRequest>();
}

void HierarchicalCommunicator::reduce_in_steps(const Array& buffer, ReduceOp op, const std::string& collective,
                                               bool node_mean) {
    if (buffer.size() == 0) return;
    detail::NcclComm& comm = nccl(buffer.device());
    void* data = buffer.raw_data();
    const auto count = static_cast<size_t>(buffer.size());
    const ncclDataType_t type = detail::nccl_datatype(buffer.dtype());
    const ncclRedOp_t reduce = node_mean ? ncclAvg : detail::nccl_op(op);
    // 1. The node's sum (max, min) on its leader, intra rank 0.
    comm.run(collective, "ncclReduce", [=](ncclComm_t c, cudaStream_t stream) {
        return ncclReduce(data, data, count, type, reduce, 0, c, stream);
    });
    // 2. The leaders reduce the node results over MPI through host memory. The host copy
    // below synchronises the compute stream, so the watch waits first (with its deadline).
    if (leaders_ && leaders_->size() > 1) {
        comm.wait_all(collective);
        const Array host = buffer.to_device(Device::native());
        {
            const detail::OpGuard guard{
                *leaders_, {.op = collective + " (leaders)", .dtype = host.dtype(), .shape = host.shape()}};
            detail::allreduce_chunked(leaders_->comm(), nullptr, host.raw_data(), host.size(),
                                      detail::mpi_datatype(host.dtype()), host.itemsize(),
                                      detail::mpi_op(mpi_reduce(op), host.dtype()));
        }
        if (node_mean) {  // the sum of the node means over the nodes: scaled while on the host
            void* p = host.raw_data();
            detail::sum_into(host.dtype(), {&p, 1}, {&p, 1}, host.size(), 1.0 / leaders_->size());
        }
        buffer.assign(host.to_device(buffer.device()));
    }
    // 3. The result from the leader to the node.
    comm.run(collective, "ncclBroadcast",
             [=](ncclComm_t c, cudaStream_t stream) { return ncclBroadcast(data, data, count, type, 0, c, stream); });
}

}  // namespace rensa::distributed
