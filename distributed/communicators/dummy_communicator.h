#pragma once

#include "distributed/communicators/flat_communicator.h"

namespace rensa::distributed {

// DummyCommunicator (chainermn's dummy): the gradient path of "flat" (buckets, grads written
// into them by backward) without the reduction, to measure what the path costs; grads come
// out unchanged (size 1 for the grads). Everything else (topology, array and object
// collectives, bcast_data) is real.
class DummyCommunicator : public FlatCommunicator {
public:
    DummyCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options)
        : FlatCommunicator(std::move(handle), options) {}
    std::string name() const override { return "dummy"; }
    // Plain buffers, nothing reduced.
    [[nodiscard]] std::unique_ptr<detail::BucketReducer> make_bucket_reducer(
        const std::vector<detail::BucketSpec>& specs, Device device) override;

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
};

}  // namespace rensa::distributed
