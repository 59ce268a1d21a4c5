#include "distributed/communicators/detail/reduce_ops.h"

#include "core/error.h"
#include "core/ops/elementwise.h"

namespace rensa::distributed::detail {

MpiReduce mpi_reduce(ReduceOp op) {
    switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kMean:
            return MpiReduce::kSum;
        case ReduceOp::kMax:
            return MpiReduce::kMax;
        case ReduceOp::kMin:
            return MpiReduce::kMin;
    }
    return MpiReduce::kSum;
}

void check_reducible(const Array& x, ReduceOp op, const char* name) {
    RENSA_CHECK(x.defined(), ValueError, name, ": the array is undefined");
    RENSA_CHECK(!(x.dtype() == Dtype::kBool && (op == ReduceOp::kSum || op == ReduceOp::kMean)), DtypeError, name, ": ",
                to_string(op), " of bool arrays is not supported (use max or min, or cast to int)");
}

void divide_inplace(const Array& buffer, int size) {
    if (size == 1) return;
    buffer.assign(is_float(buffer.dtype()) ? ops::divide(buffer, Scalar(static_cast<double>(size)))
                                           : ops::floor_divide(buffer, Scalar(static_cast<int64_t>(size))));
}

}  // namespace rensa::distributed::detail
