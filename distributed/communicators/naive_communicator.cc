#include "distributed/communicators/naive_communicator.h"

namespace rensa::distributed {

CommunicatorPtr NaiveCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<NaiveCommunicator>(std::move(handle), options_);
}

}  // namespace rensa::distributed
