#include "distributed/communicators/dummy_communicator.h"

namespace rensa::distributed {

CommunicatorPtr DummyCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<DummyCommunicator>(std::move(handle), options_);
}

void DummyCommunicator::mean_grads(const std::vector<Array>& grads) {
    if (grads.empty()) return;
    grad_packer_.pack(grads, options_.allreduce_grad_dtype);
    grad_packer_.unpack(grads);
}

}  // namespace rensa::distributed
