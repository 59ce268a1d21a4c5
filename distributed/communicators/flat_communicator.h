#pragma once
// FlatCommunicator (chainermn's flat): the gradients in buckets of many parameters, each
// reduced as one; in shared memory when every rank is on one node, else by a ring over all
// ranks (see Note [Shared-memory buckets] in distributed/detail/mpi_bucket_reducer.cc).

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
};

}  // namespace rensa::distributed
