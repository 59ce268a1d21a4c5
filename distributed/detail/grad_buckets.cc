#include "distributed/detail/grad_buckets.h"

#include <algorithm>
#include <map>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/elementwise.h"
#include "links/link.h"

namespace rensa::distributed::detail {

namespace {

// Elements [offset, offset + size) of a 1-D buffer, viewed in `shape` (aliases the buffer).
Array slice_of(const Array& buffer, int64_t offset, const Shape& shape) {
    return buffer.index({Slice{offset, offset + shape_size(shape)}}).reshape(shape);
}

}  // namespace

NamedParams bucketed_params(const links::Link& link) {
    NamedParams params;
    for (auto& [name, param] : link.namedparams(/*include_uninit=*/false)) {
        if (param.update_enabled()) params.emplace_back(name, param);
    }
    std::sort(params.begin(), params.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return params;
}

GradBuckets::GradBuckets(NamedParams params, int64_t bucket_size_bytes, std::optional<Dtype> reduce_dtype,
                         Device buffer_device)
    : device_{buffer_device} {
    RENSA_CHECK(bucket_size_bytes > 0, ValueError, "multi-node optimizer: bucket_size_bytes must be positive, got ",
                bucket_size_bytes);
    layout(params, bucket_size_bytes, reduce_dtype);
}

GradBuckets::~GradBuckets() {
    for (Bucket& bucket : buckets_) bucket.request.reset();  // a Request waits when destroyed
}

// See Note [Gradient buckets].
void GradBuckets::layout(const NamedParams& params, int64_t bucket_size_bytes, std::optional<Dtype> reduce_dtype) {
    std::map<Dtype, size_t> open;  // dtype -> the bucket still filling
    for (auto it = params.rbegin(); it != params.rend(); ++it) {
        const auto& [name, param] = *it;
        const Dtype dtype = reduce_dtype.value_or(param.dtype());
        auto found = open.find(dtype);
        if (found == open.end()) {
            found = open.emplace(dtype, buckets_.size()).first;
            buckets_.emplace_back().dtype = dtype;
        }
        Bucket& bucket = buckets_[found->second];
        slots_.push_back({.param = param, .bucket = found->second, .offset = bucket.elements});
        bucket.slots.push_back(slots_.size() - 1);
        bucket.elements += param.array().size();
        if (bucket.elements * itemsize(dtype) >= bucket_size_bytes) open.erase(found);
    }
    for (Bucket& bucket : buckets_) bucket.buffer = Array::empty({bucket.elements}, bucket.dtype, device_);
    for (const auto& [name, param] : params) layout_of_.push_back({name, param.shape(), param.dtype()});
}

bool GradBuckets::matches(const NamedParams& params) const {
    if (params.size() != layout_of_.size()) return false;
    for (size_t i = 0; i < params.size(); ++i) {
        const Entry& e = layout_of_[i];
        const links::Parameter& p = params[i].second;
        if (e.name != params[i].first || e.shape != p.shape() || e.dtype != p.dtype()) return false;
    }
    return true;
}

void GradBuckets::reset() {
    for (Bucket& bucket : buckets_) {
        if (bucket.request) bucket.request->wait();
        bucket.request.reset();
        bucket.pending = bucket.slots.size();
    }
    slot_of_.clear();
    for (size_t i = 0; i < slots_.size(); ++i) {
        slots_[i].ready = slots_[i].had_grad = false;
        slot_of_[slots_[i].param.node().get()] = i;
    }
    started_ = finished_ = 0;
}

void GradBuckets::grad_ready(const Variable& leaf, Communicator& comm) {
    const auto it = slot_of_.find(leaf.node().get());
    if (it != slot_of_.end() && !slots_[it->second].ready) {
        Slot& slot = slots_[it->second];
        slot.ready = true;
        --buckets_[slot.bucket].pending;
        start_ready(comm);
    }
    progress();
}

void GradBuckets::start_ready(Communicator& comm) {
    while (started_ < buckets_.size() && buckets_[started_].pending == 0) start(started_++, comm);
}

void GradBuckets::start_all(Communicator& comm) {
    while (started_ < buckets_.size()) start(started_++, comm);
}

// Packs the bucket's grads (zeros for missing ones) and starts its all-reduce.
void GradBuckets::start(size_t index, Communicator& comm) {
    NoBackpropMode no_graph;
    Bucket& bucket = buckets_[index];
    for (const size_t s : bucket.slots) {
        Slot& slot = slots_[s];
        const Array dst = slice_of(bucket.buffer, slot.offset, slot.param.shape());
        const Array grad = slot.param.grad();
        slot.had_grad = grad.defined();
        if (!slot.had_grad) {
            dst.fill(0);
        } else {
            dst.assign(grad.device() == device_ ? grad : grad.to_device(device_));
        }
    }
    bucket.request = comm.iallreduce_inplace(bucket.buffer, ReduceOp::kSum);
}

void GradBuckets::progress() {
    while (finished_ < started_ && buckets_[finished_].request->test()) ++finished_;
}

void GradBuckets::finish(double scale, bool zero_fill) {
    RENSA_ASSERT(started_ == buckets_.size());
    for (Bucket& bucket : buckets_) {
        bucket.request->wait();
        unpack(bucket, scale, zero_fill);
    }
    finished_ = started_;
}

// New grad arrays (never in place: a grad may alias another variable's, e.g. both inputs of
// an addition get the same gradient array).
void GradBuckets::unpack(const Bucket& bucket, double scale, bool zero_fill) {
    NoBackpropMode no_graph;
    for (const size_t s : bucket.slots) {
        const Slot& slot = slots_[s];
        const links::Parameter& param = slot.param;
        if (!slot.had_grad && !zero_fill) {  // double buffering: drop this step's grad too
            param.cleargrad();
            continue;
        }
        Array grad = ops::multiply(slice_of(bucket.buffer, slot.offset, param.shape()), Scalar(scale));
        if (grad.dtype() != param.dtype()) grad = grad.astype(param.dtype());
        if (param.device() != Device::native()) grad = grad.to_device(param.device());
        param.set_grad(grad);
    }
}

}  // namespace rensa::distributed::detail
