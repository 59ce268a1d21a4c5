#include "distributed/communicators/dummy_communicator.h"

#include "distributed/detail/bucket_reducer.h"

namespace rensa::distributed {

CommunicatorPtr DummyCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<DummyCommunicator>(std::move(handle), options_);
}

std::unique_ptr<detail::BucketReducer> DummyCommunicator::make_bucket_reducer(
    const std::vector<detail::BucketSpec>& specs, Device device) {
    return detail::make_local_bucket_reducer(specs, device);
}

}  // namespace rensa::distributed
