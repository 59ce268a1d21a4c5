#include "distributed/communicator.h"

namespace rensa::distributed {

std::string to_string(ReduceOp op) {
    switch (op) {
        case ReduceOp::kSum:
            return "sum";
        case ReduceOp::kMean:
            return "mean";
        case ReduceOp::kMax:
            return "max";
        case ReduceOp::kMin:
            return "min";
    }
    return "?";
}

}  // namespace rensa::distributed
