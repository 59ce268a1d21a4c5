#include "distributed/communicators/flat_communicator.h"

#include "distributed/communicators/detail/mpi_chunks.h"

namespace rensa::distributed {

CommunicatorPtr FlatCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<FlatCommunicator>(std::move(handle), options_);
}

void FlatCommunicator::bcast_arrays(const std::vector<Array>& arrays) {
    if (arrays.empty()) return;
    for (const Array& buffer : param_packer_.pack(arrays)) {
        detail::OpGuard guard{handle(),
                              {.op = "bcast_data", .dtype = buffer.dtype(), .shape = buffer.shape(), .root = 0}};
        detail::bcast_chunked(handle().comm(), buffer.raw_data(), buffer.nbytes(), 0);
    }
    param_packer_.unpack(arrays);
}

void FlatCommunicator::mean_grads(const std::vector<Array>& grads) {
    if (grads.empty()) return;
    for (const Array& buffer : grad_packer_.pack(grads, options_.allreduce_grad_dtype)) {
        detail::OpGuard guard{handle(), {.op = "allreduce_grad", .dtype = buffer.dtype(), .shape = buffer.shape()}};
        allreduce_raw(buffer, ReduceOp::kSum);
    }
    grad_packer_.unpack(grads, 1.0 / size_);
}

}  // namespace rensa::distributed
