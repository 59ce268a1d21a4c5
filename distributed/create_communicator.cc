#include "distributed/communicators/dummy_communicator.h"
#include "distributed/communicators/flat_communicator.h"
#include "distributed/communicators/hierarchical_communicator.h"
#include "distributed/communicators/naive_communicator.h"
#ifdef RENSA_HAVE_NCCL
#include "distributed/communicators/pure_nccl_communicator.h"
#endif

namespace rensa::distributed {

CommunicatorPtr create_communicator(const std::string& name, CommunicatorOptions options) {
#ifndef RENSA_HAVE_NCCL
    if (name == "pure_nccl") {
        RENSA_THROW(distributed::MpiError,
                    "create_communicator: 'pure_nccl' needs the CUDA build with NCCL (not part of this build); use "
                    "'naive', 'flat', 'hierarchical' or 'dummy'");
    }
#endif
    RENSA_CHECK(name == "naive" || name == "flat" || name == "dummy" || name == "hierarchical" || name == "pure_nccl",
                ValueError, "create_communicator: unknown name '", name,
                "' (expected 'naive', 'flat', 'hierarchical', 'dummy', or with CUDA 'pure_nccl')");
    if (options.debug) detail::set_debug(true);
    options.debug = options.debug || detail::debug_enabled();
    detail::ensure_initialized();
    auto handle = detail::CommHandle::create_world();
    if (name == "naive") return std::make_shared<NaiveCommunicator>(std::move(handle), options);
    if (name == "flat") return std::make_shared<FlatCommunicator>(std::move(handle), options);
    if (name == "hierarchical") return std::make_shared<HierarchicalCommunicator>(std::move(handle), options);
#ifdef RENSA_HAVE_NCCL
    // The NCCL communicator itself starts at the first collective on a CUDA array (after the
    // user chose the device); until then it works as "flat" over MPI.
    if (name == "pure_nccl") return std::make_shared<PureNcclCommunicator>(std::move(handle), options);
#endif
    return std::make_shared<DummyCommunicator>(std::move(handle), options);
}

}  // namespace rensa::distributed
