// The pure_nccl communicator. See Note [pure_nccl] and Note [NCCL watch].
#include "distributed/communicators/pure_nccl_communicator.h"

#include <algorithm>
#include <sstream>

#include "core/ops/elementwise.h"
#include "cuda/device_guard.h"
#include "distributed/communicators/detail/reduce_ops.h"
#include "distributed/detail/bucket_reducer.h"
#include "distributed/detail/nccl_check.h"
#include "distributed/detail/nccl_comm.h"

namespace rensa::distributed {
namespace {

using detail::check_reducible;
using detail::divide_inplace;
using detail::DoneRequest;
using detail::OpGuard;

bool is_cuda(const Array& x) { return x.defined() && x.device().kind == DeviceKind::kCuda; }

// An iallreduce on the communication stream. wait() makes the compute stream wait for it
// (no host synchronisation); test() polls the event and the watch.
class NcclRequest : public Request {
public:
    NcclRequest(std::shared_ptr<detail::NcclComm> comm, std::shared_ptr<cuda::Event> done, Array buffer, ReduceOp op,
                int size)
        : comm_{std::move(comm)}, done_event_{std::move(done)}, buffer_{std::move(buffer)}, op_{op}, size_{size} {}
    ~NcclRequest() override {
        if (done_) return;
        try {
            wait();
        } catch (const std::exception& e) {
            detail::abort_job(std::string("iallreduce: ") + e.what());
        }
    }
    void wait() override {
        if (done_) return;
        const cuda::DeviceGuard guard{comm_->device()};
        comm_->poll();
        done_event_->wait(cuda::current_stream(comm_->device()));
        done_ = true;
        if (op_ == ReduceOp::kMean) divide_inplace(buffer_, size_);
    }
    bool test() override {
        if (done_) return true;
        comm_->poll();
        if (done_event_->query()) wait();
        return done_;
    }

private:
    std::shared_ptr<detail::NcclComm> comm_;
    std::shared_ptr<cuda::Event> done_event_;
    Array buffer_;
    ReduceOp op_;
    int size_;
    bool done_ = false;
};

}  // namespace

// Buckets on one GPU, each reduced by the communicator's start_bucket.
class PureNcclCommunicator::NcclBucketReducer final : public detail::BucketReducer {
public:
    NcclBucketReducer(PureNcclCommunicator& comm, const std::vector<detail::BucketSpec>& specs, Device device)
        : comm_{comm} {
        for (const auto& spec : specs) buffers_.push_back(Array::empty({spec.elements}, spec.dtype, device));
    }
    std::unique_ptr<Request> start(size_t index) override { return comm_.start_bucket(buffers_.at(index)); }

private:
    PureNcclCommunicator& comm_;
};

PureNcclCommunicator::PureNcclCommunicator(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options)
    : FlatCommunicator(std::move(handle), options) {}

PureNcclCommunicator::~PureNcclCommunicator() = default;

CommunicatorPtr PureNcclCommunicator::make_same_kind(std::shared_ptr<detail::CommHandle> handle) const {
    return std::make_shared<PureNcclCommunicator>(std::move(handle), options_);
}

bool PureNcclCommunicator::on_one_gpu(const std::vector<Array>& arrays) {
    if (arrays.empty() || !is_cuda(arrays[0])) return false;
    for (const Array& a : arrays) {
        if (!is_cuda(a) || a.device() != arrays[0].device()) return false;
    }
    return true;
}

detail::NcclComm& PureNcclCommunicator::nccl(Device device) {
    if (!nccl_) nccl_ = std::make_shared<detail::NcclComm>(nccl_handle(), device.index);
    RENSA_CHECK(nccl_->device() == device.index, ValueError, name(),
                ": the NCCL communicator lives on cuda:", nccl_->device(),
                " (made by the first CUDA collective), got an array on ", device);
    return *nccl_;
}

void PureNcclCommunicator::reduce_on_device(const Array& buffer, ReduceOp op, const std::string& collective) {
    if (buffer.size() == 0) return;
    void* data = buffer.raw_data();
    const auto count = static_cast<size_t>(buffer.size());
    const ncclDataType_t type = detail::nccl_datatype(buffer.dtype());
    const ncclRedOp_t reduce = detail::nccl_op(op);
    nccl(buffer.device()).run(collective, "ncclAllReduce", [=](ncclComm_t comm, cudaStream_t stream) {
        return ncclAllReduce(data, data, count, type, reduce, comm, stream);
    });
    if (op == ReduceOp::kMean) divide_inplace(buffer, size_);
}

Array PureNcclCommunicator::allreduce(const Array& x, ReduceOp op) {
    if (!is_cuda(x)) return FlatCommunicator::allreduce(x, op);
    check_reducible(x, op, "allreduce");
    const OpGuard guard{handle(), {.op = "allreduce", .dtype = x.dtype(), .shape = x.shape()}};
    const Array out = x.copy();  // contiguous, on x's device
    reduce_on_device(out, op, "allreduce");
    return out;
}

void PureNcclCommunicator::allreduce_inplace(const Array& buffer, ReduceOp op) {
    if (!is_cuda(buffer)) return FlatCommunicator::allreduce_inplace(buffer, op);
    check_reducible(buffer, op, "allreduce_inplace");
    RENSA_CHECK(buffer.is_contiguous(), ValueError, "allreduce_inplace: the buffer must be contiguous, got ",
                buffer.device(), " non-contiguous");
    const OpGuard guard{handle(), {.op = "allreduce_inplace", .dtype = buffer.dtype(), .shape = buffer.shape()}};
    reduce_on_device(buffer, op, "allreduce_inplace");
}

std::unique_ptr<Request> PureNcclCommunicator::iallreduce_inplace(const Array& buffer, ReduceOp op) {
    if (!is_cuda(buffer)) return FlatCommunicator::iallreduce_inplace(buffer, op);
    check_reducible(buffer, op, "iallreduce_inplace");
    RENSA_CHECK(buffer.is_contiguous(), ValueError, "iallreduce_inplace: the buffer must be contiguous, got ",
                buffer.device(), " non-contiguous");
    const OpGuard guard{handle(), {.op = "iallreduce", .dtype = buffer.dtype(), .shape = buffer.shape()}};
    if (buffer.size() == 0) return std::make_unique<DoneRequest>();
    detail::NcclComm& comm = nccl(buffer.device());
    void* data = buffer.raw_data();
    const auto count = static_cast<size_t>(buffer.size());
    const ncclDataType_t type = detail::nccl_datatype(buffer.dtype());
    const ncclRedOp_t reduce = detail::nccl_op(op);
    auto done = comm.run(
        "iallreduce", "ncclAllReduce",
        [=](ncclComm_t c, cudaStream_t stream) { return ncclAllReduce(data, data, count, type, reduce, c, stream); },
        /*compute_waits=*/false);
    return std::make_unique<NcclRequest>(nccl_, std::move(done), buffer, op, size_);
}

std::vector<Array> PureNcclCommunicator::allgather(const Array& x) {
    std::string mine;  // "" unless x is a CUDA array
    if (is_cuda(x)) {
        std::ostringstream os;
        os << x.dtype() << ' ' << x.shape();
        mine = os.str();
    }
    const std::vector<std::string> all = allgather_obj(mine);  // same verdict on every rank
    const bool uniform =
        !all[0].empty() && std::all_of(all.begin(), all.end(), [&](const std::string& s) { return s == all[0]; });
    if (!uniform) return FlatCommunicator::allgather(x);
    const OpGuard guard{handle(), {.op = "allgather", .dtype = x.dtype(), .shape = x.shape()}};
    const Array input = x.as_contiguous();
    const Array rows = Array::empty({static_cast<int64_t>(size_), x.size()}, x.dtype(), x.device());
    if (x.size() > 0) {
        const void* send = input.raw_data();
        void* recv = rows.raw_data();
        const auto bytes = static_cast<size_t>(input.nbytes());
        nccl(x.device()).run("allgather", "ncclAllGather", [=](ncclComm_t comm, cudaStream_t stream) {
            return ncclAllGather(send, recv, bytes, ncclUint8, comm, stream);
        });
    }
    std::vector<Array> out;
    for (int r = 0; r < size_; ++r) out.push_back(rows[r].reshape(x.shape()));
    return out;
}

void PureNcclCommunicator::barrier() {
    if (nccl_) nccl_->wait_all("barrier");
    FlatCommunicator::barrier();
}

void PureNcclCommunicator::bcast_arrays(const std::vector<Array>& arrays) {
    if (!on_one_gpu(arrays)) return FlatCommunicator::bcast_arrays(arrays);
    for (const Array& array : arrays) {
        const OpGuard guard{handle(), {.op = "bcast_data", .dtype = array.dtype(), .shape = array.shape(), .root = 0}};
        if (array.size() == 0) continue;
        const Array data = array.is_contiguous() ? array : array.copy();
        void* bytes = data.raw_data();
        const auto count = static_cast<size_t>(data.nbytes());
        nccl(data.device()).run("bcast_data", "ncclBroadcast", [=](ncclComm_t comm, cudaStream_t stream) {
            return ncclBroadcast(bytes, bytes, count, ncclUint8, 0, comm, stream);
        });
        if (data.storage() != array.storage()) array.assign(data);
    }
}

Device PureNcclCommunicator::bucket_device(Device params_device) const {
    return params_device.kind == DeviceKind::kCuda ? params_device : Device::native();
}

std::unique_ptr<detail::BucketReducer> PureNcclCommunicator::make_bucket_reducer(
    const std::vector<detail::BucketSpec>& specs, Device device) {
    if (device.kind != DeviceKind::kCuda) return FlatCommunicator::make_bucket_reducer(specs, device);
    return std::make_unique<NcclBucketReducer>(*this, specs, device);
}

std::unique_ptr<Request> PureNcclCommunicator::start_bucket(const Array& bucket) {
    const OpGuard guard{handle(), {.op = "bucket_allreduce", .dtype = bucket.dtype(), .shape = bucket.shape()}};
    if (bucket.size() == 0) return std::make_unique<DoneRequest>();
    detail::NcclComm& comm = nccl(bucket.device());
    void* data = bucket.raw_data();
    const auto count = static_cast<size_t>(bucket.size());
    const ncclDataType_t type = detail::nccl_datatype(bucket.dtype());
    auto done = comm.run(
        "bucket_allreduce", "ncclAllReduce",
        [=](ncclComm_t c, cudaStream_t stream) { return ncclAllReduce(data, data, count, type, ncclAvg, c, stream); },
        /*compute_waits=*/false);
    return std::make_unique<NcclRequest>(nccl_, std::move(done), bucket, ReduceOp::kSum, size_);
}

}  // namespace rensa::distributed
