#include "distributed/communicators/naive_communicator.h"

#include "core/ops/elementwise.h"
#include "distributed/communicators/detail/array_codec.h"

namespace rensa::distributed {

CommunicatorPtr NaiveCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<NaiveCommunicator>(std::move(handle), options_);
}

void NaiveCommunicator::mean_grads(const std::vector<Array>& grads) {
    const double scale = 1.0 / size_;
    for (const Array& grad : grads) {
        const Dtype dtype = reduce_dtype(grad.dtype());
        detail::OpGuard guard{handle(), {.op = "allreduce_grad", .dtype = dtype, .shape = grad.shape()}};
        const bool in_place = grad.dtype() == dtype && grad.device() == Device::native() && grad.is_contiguous();
        if (in_place) {
            allreduce_raw(grad, ReduceOp::kSum);
            if (size_ > 1) ops::multiply_inplace(grad, Scalar(scale));
            continue;
        }
        const Array work = detail::host_copy(grad.astype(dtype, false));
        allreduce_raw(work, ReduceOp::kSum);
        grad.assign(ops::multiply(work, Scalar(scale)).to_device(grad.device()));
    }
}

}  // namespace rensa::distributed
