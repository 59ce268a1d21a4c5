#pragma once
// NaiveCommunicator (chainermn's naive): one all-reduce per gradient, i.e. gradient buckets
// of one parameter each (see Note [Gradient buckets] in distributed/detail/grad_buckets.h).

#include "distributed/communicators/mpi_communicator_base.h"

namespace rensa::distributed {

class NaiveCommunicator : public MpiCommunicatorBase {
public:
    // Collective over `handle`'s ranks.
    NaiveCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options)
        : MpiCommunicatorBase(std::move(handle), options) {}
    std::string name() const override { return "naive"; }
    // A bucket closes after every parameter.
    [[nodiscard]] int64_t bucket_bytes(int64_t /*requested*/) const override { return 1; }

protected:
    [[nodiscard]] CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const override;
};

}  // namespace rensa::distributed
