#include "distributed/communicators/flat_communicator.h"

namespace rensa::distributed {

CommunicatorPtr FlatCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<FlatCommunicator>(std::move(handle), options_);
}

}  // namespace rensa::distributed
