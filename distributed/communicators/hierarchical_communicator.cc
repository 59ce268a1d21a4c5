// The hierarchical communicator's host (MPI) part; the NCCL part is in hierarchical_nccl.cc.
#include "distributed/communicators/hierarchical_communicator.h"

#include "distributed/detail/bucket_reducer.h"

namespace rensa::distributed {

HierarchicalCommunicator::HierarchicalCommunicator(std::shared_ptr<detail::CommHandle> handle,
                                                   CommunicatorOptions options)
    : HierarchicalBase(std::move(handle), options) {
#ifdef RENSA_HAVE_NCCL
    leaders_ = this->handle().split(intra_rank_ == 0 ? 0 : MPI_UNDEFINED, rank_);
#endif
}

CommunicatorPtr HierarchicalCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<HierarchicalCommunicator>(std::move(handle), options_);
}

std::unique_ptr<detail::BucketReducer> HierarchicalCommunicator::make_bucket_reducer(
    const std::vector<detail::BucketSpec>& specs, Device device) {
    if (device.kind == DeviceKind::kCuda) return HierarchicalBase::make_bucket_reducer(specs, device);
    RENSA_CHECK(device == Device::native(), DeviceError, name(),
                ": gradient buckets reduced over MPI live in host memory, got ", device);
    return make_host_reducer(specs, /*node_aware=*/true);
}

}  // namespace rensa::distributed
