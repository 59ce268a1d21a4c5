#include "distributed/communicators/dummy_communicator.h"
#include "distributed/communicators/flat_communicator.h"
#include "distributed/communicators/naive_communicator.h"

namespace rensa::distributed {

CommunicatorPtr create_communicator(const std::string& name, CommunicatorOptions options) {
    if (name == "pure_nccl" || name == "hierarchical") {
        RENSA_THROW(distributed::MpiError, "create_communicator: '", name,
                    "' needs the CUDA build with NCCL (the NCCL communicators are not part of this build); use "
                    "'naive', 'flat' or 'dummy'");
    }
    RENSA_CHECK(name == "naive" || name == "flat" || name == "dummy", ValueError, "create_communicator: unknown name '",
                name, "' (expected 'naive', 'flat', 'dummy', or with CUDA 'pure_nccl', 'hierarchical')");
    if (options.debug) detail::set_debug(true);
    options.debug = options.debug || detail::debug_enabled();
    detail::ensure_initialized();
    auto handle = detail::CommHandle::create_world();
    if (name == "naive") return std::make_shared<NaiveCommunicator>(std::move(handle), options);
    if (name == "flat") return std::make_shared<FlatCommunicator>(std::move(handle), options);
    return std::make_shared<DummyCommunicator>(std::move(handle), options);
}

}  // namespace rensa::distributed
