#pragma once
// NaiveCommunicator (chainermn's naive): one MPI allreduce per gradient array.

#include "distributed/communicators/mpi_communicator_base.h"

namespace rensa::distributed {

class NaiveCommunicator : public MpiCommunicatorBase {
public:
    // Collective over `handle`'s ranks.
    NaiveCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options)
        : MpiCommunicatorBase(std::move(handle), options) {}
    std::string name() const override { return "naive"; }

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
    void mean_grads(const std::vector<Array>& grads) override;
};

}  // namespace rensa::distributed
