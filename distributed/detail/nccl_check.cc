#include "distributed/detail/nccl_check.h"

#include "core/error.h"

namespace rensa::distributed::detail {

void check_nccl(ncclResult_t status, std::string_view call, int rank, ncclComm_t comm) {
    if (status == ncclSuccess || status == ncclInProgress) return;
    const char* last = ncclGetLastError(comm);
    RENSA_THROW(distributed::MpiError, call, " on rank ", rank, ": ", ncclGetErrorString(status),
                last != nullptr && last[0] != '\0' ? rensa::detail::concat(" (", last, ")") : std::string());
}

ncclDataType_t nccl_datatype(Dtype dtype) {
    switch (dtype) {
        case Dtype::kBool:
        case Dtype::kUInt8:
            return ncclUint8;
        case Dtype::kInt8:
            return ncclInt8;
        case Dtype::kInt32:
            return ncclInt32;
        case Dtype::kInt64:
            return ncclInt64;
        case Dtype::kFloat16:
            return ncclFloat16;
        case Dtype::kBFloat16:
            return ncclBfloat16;
        case Dtype::kFloat32:
            return ncclFloat32;
        case Dtype::kFloat64:
            return ncclFloat64;
    }
    return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) {
    switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kMean:
            return ncclSum;
        case ReduceOp::kMax:
            return ncclMax;
        case ReduceOp::kMin:
            return ncclMin;
    }
    return ncclSum;
}

}  // namespace rensa::distributed::detail
