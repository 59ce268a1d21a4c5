// MPI datatypes and reduction ops of rensa's dtypes. float16 and bfloat16 have no MPI type: they
// travel as 2-byte types of their own, reduced by user ops that compute in float32 and round back
// (one rounding per pairwise step, like a float16 sum).
#include <cstdint>
#include <cstring>

#include "core/half.h"
#include "distributed/communicator.h"
#include "distributed/detail/reduce_value.h"
#include "distributed/detail/runtime_internal.h"
#include "distributed/detail/signature_check.h"

namespace rensa::distributed::detail {
namespace {

MPI_Datatype float16_type = MPI_DATATYPE_NULL;
MPI_Datatype bfloat16_type = MPI_DATATYPE_NULL;
// [0]: float16, [1]: bfloat16; by MpiReduce.
MPI_Op half_ops[2][3] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}, {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};

template <class Half, MpiReduce kOp>
void half_reduce(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto* a = static_cast<const uint16_t*>(in);
    auto* b = static_cast<uint16_t*>(inout);
    for (int i = 0; i < *len; ++i) b[i] = reduce_value(kOp, Half(a[i], FromBits{}), Half(b[i], FromBits{})).bits;
}

template <class Half>
void create_half_ops(MPI_Op (&ops)[3]) {
    check_mpi(MPI_Op_create(&half_reduce<Half, MpiReduce::kSum>, 1, &ops[0]), "MPI_Op_create(half sum)");
    check_mpi(MPI_Op_create(&half_reduce<Half, MpiReduce::kMax>, 1, &ops[1]), "MPI_Op_create(half max)");
    check_mpi(MPI_Op_create(&half_reduce<Half, MpiReduce::kMin>, 1, &ops[2]), "MPI_Op_create(half min)");
}

MPI_Datatype make_uint16_type(const char* name) {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_contiguous(1, MPI_UINT16_T, &type), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
    MPI_Type_set_name(type, name);
    return type;
}

int op_index(MpiReduce op) {
    switch (op) {
        case MpiReduce::kSum:
            return 0;
        case MpiReduce::kMax:
            return 1;
        case MpiReduce::kMin:
            return 2;
    }
    return 0;
}

}  // namespace

void init_mpi_types() {
    float16_type = make_uint16_type("rensa_float16");
    bfloat16_type = make_uint16_type("rensa_bfloat16");
    create_half_ops<Half>(half_ops[0]);
    create_half_ops<BFloat16>(half_ops[1]);
    init_envelope_type();
}

void free_mpi_types() {
    free_envelope_type();
    for (MPI_Datatype* type : {&float16_type, &bfloat16_type}) {
        if (*type != MPI_DATATYPE_NULL) MPI_Type_free(type);
    }
    for (auto& ops : half_ops) {
        for (MPI_Op& op : ops) {
            if (op != MPI_OP_NULL) MPI_Op_free(&op);
        }
    }
}

MPI_Datatype mpi_datatype(Dtype dtype) {
    switch (dtype) {
        case Dtype::kBool:
            return MPI_C_BOOL;
        case Dtype::kInt8:
            return MPI_INT8_T;
        case Dtype::kUInt8:
            return MPI_UINT8_T;
        case Dtype::kInt32:
            return MPI_INT32_T;
        case Dtype::kInt64:
            return MPI_INT64_T;
        case Dtype::kFloat16:
            ensure_initialized();
            return float16_type;
        case Dtype::kBFloat16:
            ensure_initialized();
            return bfloat16_type;
        case Dtype::kFloat32:
            return MPI_FLOAT;
        case Dtype::kFloat64:
            return MPI_DOUBLE;
    }
    RENSA_THROW(DtypeError, "mpi_datatype: unknown dtype ", static_cast<int>(dtype));
}

MPI_Op mpi_op(MpiReduce op, Dtype dtype) {
    if (dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16) {
        ensure_initialized();
        return half_ops[dtype == Dtype::kFloat16 ? 0 : 1][op_index(op)];
    }
    if (dtype == Dtype::kBool) {
        // MPI defines only logical ops on MPI_C_BOOL; bool sum/max is "any", min is "all" (numpy).
        return op == MpiReduce::kMin ? MPI_LAND : MPI_LOR;
    }
    switch (op) {
        case MpiReduce::kSum:
            return MPI_SUM;
        case MpiReduce::kMax:
            return MPI_MAX;
        case MpiReduce::kMin:
            return MPI_MIN;
    }
    return MPI_SUM;
}

}  // namespace rensa::distributed::detail
