#pragma once

#include "distributed/communicators/flat_communicator.h"

namespace rensa::distributed {

// DummyCommunicator (chainermn's dummy): packs and unpacks the gradients like flat but does
// not reduce them (grads unchanged), to measure the packing cost. Everything else
// (topology, array and object collectives, bcast_data) is real.
class DummyCommunicator : public FlatCommunicator {
public:
    DummyCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options)
        : FlatCommunicator(std::move(handle), options) {}
    std::string name() const override { return "dummy"; }

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
    void mean_grads(const std::vector<Array>& grads) override;
};

}  // namespace rensa::distributed
