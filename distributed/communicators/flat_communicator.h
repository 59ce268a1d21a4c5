#pragma once
// FlatCommunicator (chainermn's flat): every gradient packed into one contiguous buffer per
// dtype (kept across calls), one allreduce per buffer, unpacked with the 1/size scale.
// bcast_data packs the parameters the same way.

#include "distributed/communicators/grad_packing.h"
#include "distributed/communicators/mpi_communicator_base.h"

namespace rensa::distributed {

class FlatCommunicator : public MpiCommunicatorBase {
public:
    // Collective over `handle`'s ranks.
    FlatCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options)
        : MpiCommunicatorBase(std::move(handle), options) {}
    std::string name() const override { return "flat"; }

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
    void bcast_arrays(const std::vector<Array>& arrays) override;
    void mean_grads(const std::vector<Array>& grads) override;

    GradPacker grad_packer_;
    GradPacker param_packer_;
};

}  // namespace rensa::distributed
