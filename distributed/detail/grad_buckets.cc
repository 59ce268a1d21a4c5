#include "distributed/detail/grad_buckets.h"

#include <algorithm>
#include <map>

#include "autograd/modes.h"
#include "core/error.h"
#include "distributed/detail/bucket_math.h"
#include "links/link.h"

namespace rensa::distributed::detail {

namespace {

// The grad is already in `home` (backward wrote it there): nothing to copy.
bool is_home(const Array& grad, const Array& home) {
    return grad.raw_data() == home.raw_data() && grad.strides() == home.strides() && grad.dtype() == home.dtype();
}

// dst = src (same shape), cast when the dtypes differ: bucket_math's vectorised conversion for
// contiguous host arrays of float32 and a half dtype, else Array::assign.
void copy_cast(const Array& dst, const Array& src) {
    const bool host = dst.device() == Device::native() && src.device() == Device::native();
    if (host && dst.dtype() != src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
        convert(src.dtype(), src.raw_data(), dst.dtype(), dst.raw_data(), dst.size())) {
        return;
    }
    dst.assign(src.device() == dst.device() ? src : src.to_device(dst.device()));
}

// The device of the bucket buffers: the one the communicator reduces in for the parameters'
// device when they all share one, else host memory.
Device buffer_device(const NamedParams& params, const Communicator& comm) {
    if (params.empty()) return Device::native();
    const Device device = params.front().second.device();
    for (const auto& [name, param] : params) {
        if (param.device() != device) return Device::native();
    }
    return comm.bucket_device(device);
}

}  // namespace

NamedParams sorted_params(const links::Link& link, bool updating_only) {
    NamedParams params;
    for (auto& [name, param] : link.namedparams(/*include_uninit=*/false)) {
        if (!updating_only || param.update_enabled()) params.emplace_back(name, param);
    }
    std::sort(params.begin(), params.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return params;
}

GradBuckets::GradBuckets(NamedParams params, Communicator& comm, int64_t bucket_size_bytes) {
    RENSA_CHECK(bucket_size_bytes > 0, ValueError, "gradient buckets: bucket_size_bytes must be positive, got ",
                bucket_size_bytes);
    const std::optional<Dtype> reduce_dtype = comm.options().allreduce_grad_dtype;
    layout(params, bucket_size_bytes, reduce_dtype);
    make_buffers(comm, buffer_device(params, comm));
}

GradBuckets::~GradBuckets() {
    for (Bucket& bucket : buckets_) bucket.request.reset();  // a Request waits when destroyed
    for (const Slot& slot : slots_) {                        // backward stops writing into buffers nobody reduces
        const Array& destination = slot.param.grad_destination();
        if (destination.defined() && is_home(destination, slot.grad_array)) slot.param.set_grad_destination({});
    }
}

// See Note [Gradient buckets].
void GradBuckets::layout(const NamedParams& params, int64_t bucket_size_bytes, std::optional<Dtype> reduce_dtype) {
    std::map<Dtype, size_t> open;  // dtype -> the bucket still filling
    for (const auto& [name, param] : params) {
        const Dtype dtype = reduce_dtype.value_or(param.dtype());
        auto found = open.find(dtype);
        if (found == open.end()) {
            found = open.emplace(dtype, buckets_.size()).first;
            buckets_.emplace_back();
            specs_.push_back({.dtype = dtype, .elements = 0});
        }
        const size_t b = found->second;
        names_.push_back(name);
        slots_.push_back({.param = param, .bucket = b, .offset = specs_[b].elements, .view = {}, .grad_array = {}});
        buckets_[b].slots.push_back(slots_.size() - 1);
        specs_[b].elements += param.array().size();
        if (specs_[b].elements * itemsize(dtype) >= bucket_size_bytes) open.erase(found);
    }
}

void GradBuckets::make_buffers(Communicator& comm, Device device) {
    reducer_ = comm.make_bucket_reducer(specs_, device);
    const std::vector<Array>& buffers = reducer_->buffers();
    for (Slot& slot : slots_) {
        const Array& buffer = buffers[slot.bucket];
        const Shape& shape = slot.param.shape();
        slot.view = buffer.index({Slice{slot.offset, slot.offset + shape_size(shape)}}).reshape(shape);
        const bool direct = slot.param.dtype() == buffer.dtype() && slot.param.device() == buffer.device();
        slot.grad_array = direct ? slot.view : Array::empty(shape, slot.param.dtype(), slot.param.device());
    }
}

bool GradBuckets::matches(const NamedParams& params) const {
    if (params.size() != slots_.size()) return false;
    for (size_t i = 0; i < params.size(); ++i) {
        const links::Parameter& p = params[i].second;
        const Slot& slot = slots_[i];
        if (names_[i] != params[i].first || !(p == slot.param) || p.shape() != slot.grad_array.shape() ||
            p.dtype() != slot.grad_array.dtype() || p.device() != slot.grad_array.device()) {
            return false;
        }
    }
    return true;
}

void GradBuckets::install_destinations() const {
    for (const Slot& slot : slots_) slot.param.set_grad_destination(slot.grad_array);
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

void GradBuckets::grad_ready(const Variable& leaf) {
    const auto it = slot_of_.find(leaf.node().get());
    if (it != slot_of_.end() && !slots_[it->second].ready) {
        Slot& slot = slots_[it->second];
        slot.ready = true;
        --buckets_[slot.bucket].pending;
        start_ready();
    }
    progress();
}

void GradBuckets::start_ready() {
    while (started_ < buckets_.size() && buckets_[started_].pending == 0) start(started_++);
}

void GradBuckets::start_all() {
    while (started_ < buckets_.size()) start(started_++);
}

// Brings each grad into its slot (zeros when missing; a copy or cast when it is elsewhere)
// and starts the bucket's reduction.
void GradBuckets::start(size_t index) {
    NoBackpropMode no_graph;
    Bucket& bucket = buckets_[index];
    for (const size_t s : bucket.slots) {
        Slot& slot = slots_[s];
        const Array grad = slot.param.grad();
        slot.had_grad = grad.defined();
        if (!slot.had_grad) {
            slot.view.fill(0);
            continue;
        }
        if (!is_home(grad, slot.view)) copy_cast(slot.view, grad);
    }
    bucket.request = reducer_->start(index);
}

void GradBuckets::progress() {
    while (finished_ < started_ && buckets_[finished_].request->test()) ++finished_;
}

void GradBuckets::finish(bool zero_fill) {
    RENSA_ASSERT(started_ == buckets_.size());
    for (Bucket& bucket : buckets_) {
        bucket.request->wait();
        write_back(bucket, zero_fill);
    }
    finished_ = started_;
}

// The averaged grads become the parameters' grads: the slot itself, or its cast into the
// grad's own array. Never an array a parameter shared with another one before (backward
// may give two parameters one grad array), so in-place hooks stay per parameter.
void GradBuckets::write_back(const Bucket& bucket, bool zero_fill) {
    NoBackpropMode no_graph;
    for (const size_t s : bucket.slots) {
        const Slot& slot = slots_[s];
        if (!slot.had_grad && !zero_fill) {
            slot.param.cleargrad();
            continue;
        }
        if (!is_home(slot.grad_array, slot.view)) copy_cast(slot.grad_array, slot.view);
        const Array current = slot.param.grad();
        if (!current.defined() || !is_home(current, slot.grad_array)) slot.param.set_grad(slot.grad_array);
    }
}

}  // namespace rensa::distributed::detail
