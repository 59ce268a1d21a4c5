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

std::string Communicator::allreduce_obj(const std::string& obj, const Combine& combine) {
    // Every rank folds the same list in the same order, so all get the same result.
    const std::vector<std::string> all = allgather_obj(obj);
    std::string result = all.front();
    for (size_t i = 1; i < all.size(); ++i) result = combine(result, all[i]);
    return result;
}

double Communicator::allreduce_obj(double value, ReduceOp op) {
    return allreduce(Array::from_vector<double>({value}, Shape{}, Device::native()), op).item<double>();
}

}  // namespace rensa::distributed
