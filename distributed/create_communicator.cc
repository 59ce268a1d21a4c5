#include "distributed/communicators/dummy_communicator.h"
#include "distributed/communicators/flat_communicator.h"
#include "distributed/communicators/naive_communicator.h"
#ifdef RENSA_HAVE_NCCL
#include "distributed/communicators/hierarchical_communicator.h"
#include "distributed/communicators/pure_nccl_communicator.h"
#endif

namespace rensa::distributed {

CommunicatorPtr create_communicator(const std::string& name, CommunicatorOptions options) {
    const bool nccl_name = name == "pure_nccl" || name == "hierarchical";
#ifndef RENSA_HAVE_NCCL
    if (nccl_name) {
        RENSA_THROW(distributed::MpiError, "create_communicator: '", name,
                    "' needs the CUDA build with NCCL (the NCCL communicators are not part of this build); use "
                    "'naive', 'flat' or 'dummy'");
    }
#endif
    RENSA_CHECK(name == "naive" || name == "flat" || name == "dummy" || nccl_name, ValueError,
                "create_communicator: unknown name '", name,
                "' (expected 'naive', 'flat', 'dummy', or with CUDA 'pure_nccl', 'hierarchical')");
    if (options.debug) detail::set_debug(true);
    options.debug = options.debug || detail::debug_enabled();
    detail::ensure_initialized();
    auto handle = detail::CommHandle::create_world();
    if (name == "naive") return std::make_shared<NaiveCommunicator>(std::move(handle), options);
    if (name == "flat") return std::make_shared<FlatCommunicator>(std::move(handle), options);
#ifdef RENSA_HAVE_NCCL
    // The NCCL communicator itself starts at the first collective on a CUDA array (after the
    // user chose the device); until then these work as "flat" over MPI.
    if (name == "pure_nccl") return std::make_shared<PureNcclCommunicator>(std::move(handle), options);
    if (name == "hierarchical") return std::make_shared<HierarchicalCommunicator>(std::move(handle), options);
#endif
    return std::make_shared<DummyCommunicator>(std::move(handle), options);
}

}  // namespace rensa::distributed
