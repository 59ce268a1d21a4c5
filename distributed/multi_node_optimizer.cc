#include "distributed/multi_node_optimizer.h"

#include <algorithm>
#include <utility>

#include "autograd/leaf_grad_hook.h"
#include "core/error.h"
#include "distributed/detail/grad_buckets.h"

namespace rensa::distributed {

MultiNodeOptimizer::MultiNodeOptimizer(std::shared_ptr<optimizers::Optimizer> actual, CommunicatorPtr comm,
                                       MultiNodeOptimizerOptions options)
    : actual_{std::move(actual)}, comm_{std::move(comm)}, options_{options} {
    RENSA_CHECK(actual_ != nullptr, ValueError, "create_multi_node_optimizer: the actual optimizer is null");
    RENSA_CHECK(comm_ != nullptr, ValueError, "create_multi_node_optimizer: the communicator is null");
    RENSA_CHECK(options_.bucket_size_bytes > 0, ValueError,
                "create_multi_node_optimizer: bucket_size_bytes must be positive, got ", options_.bucket_size_bytes);
    share_state_with(*actual_);
    target_ = actual_->target_ptr();  // an optimizer set up before it was wrapped
    mirror();
}

MultiNodeOptimizer::~MultiNodeOptimizer() = default;

optimizers::Optimizer& MultiNodeOptimizer::setup(std::shared_ptr<links::Link> link) {
    drain();
    actual_->setup(std::move(link));
    target_ = actual_->target_ptr();
    buckets_[0].reset();
    buckets_[1].reset();
    target_params_.clear();
    hooked_backward_ = false;
    mirror();
    return *this;
}

// See Note [Multi-node update].
void MultiNodeOptimizer::update() {
    push_counters();
    if (is_changed()) {
        broadcast_step();
    } else if (options_.double_buffering) {
        double_buffered_step();
    } else {
        mean_grads();
        actual_->update();
    }
    mirror();
}

MultiNodeOptimizer::ParamSignature MultiNodeOptimizer::param_signature() const {
    ParamSignature signature;
    for (const auto& [name, param] : target().namedparams(/*include_uninit=*/true)) {
        signature.emplace_back(name, param.is_initialized() ? std::optional<Shape>{param.shape()} : std::nullopt);
    }
    std::sort(signature.begin(), signature.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return signature;
}

bool MultiNodeOptimizer::is_changed() {
    ParamSignature now = param_signature();
    const bool changed = now != target_params_;
    target_params_ = std::move(now);
    return changed;
}

void MultiNodeOptimizer::broadcast_step() {
    drain();  // requests a hooked backward started (every rank started the same ones)
    comm_->bcast_data(target());
}

bool MultiNodeOptimizer::overlap_enabled() const { return options_.overlap && comm_->name() != "dummy"; }

detail::GradBuckets* MultiNodeOptimizer::buckets(size_t set) {
    std::unique_ptr<detail::GradBuckets>& slot = buckets_[set];
    detail::NamedParams params = detail::bucketed_params(target());
    if (slot && slot->matches(params)) return slot.get();
    slot.reset();
    if (params.empty()) return nullptr;
    // The NCCL communicators reduce CUDA buffers on the GPU (Note [pure_nccl]): buckets go
    // there when every bucketed parameter is on one GPU; the MPI ones take native buffers.
    Device device = params.front().second.device();
    const bool nccl = comm_->name() == "pure_nccl" || comm_->name() == "hierarchical";
    for (const auto& [name, param] : params) {
        if (!nccl || param.device() != device || device.kind != DeviceKind::kCuda) device = Device::native();
    }
    slot = std::make_unique<detail::GradBuckets>(std::move(params), options_.bucket_size_bytes,
                                                 comm_->options().allreduce_grad_dtype, device);
    slot->reset();
    return slot.get();
}

void MultiNodeOptimizer::drain() {
    for (auto& set : buckets_) {
        if (set) set->reset();
    }
    has_previous_ = false;
    hooked_backward_ = false;
}

// See Note [Overlap].
void MultiNodeOptimizer::mean_grads() {
    const bool hooked = std::exchange(hooked_backward_, false);
    if (!overlap_enabled()) {
        comm_->multi_node_mean_grad(target(), options_.zero_fill);
        return;
    }
    detail::GradBuckets* set = buckets(0);
    if (set == nullptr) return;
    if (!hooked) set->reset();
    set->start_all(*comm_);
    set->finish(1.0 / comm_->size(), options_.zero_fill);
}

// See Note [Double buffering].
void MultiNodeOptimizer::double_buffered_step() {
    detail::GradBuckets* current = buckets(current_);
    if (current == nullptr) {  // nothing to reduce
        actual_->update();
        return;
    }
    detail::GradBuckets* previous = has_previous_ ? buckets(1 - current_) : nullptr;
    if (previous != nullptr && !previous->all_started()) previous = nullptr;  // rebuilt: updates were switched
    current->reset();
    current->start_all(*comm_);  // packs this step's grads before the previous ones overwrite them
    if (previous != nullptr) {
        previous->finish(1.0 / comm_->size(), options_.zero_fill);
        actual_->update();
    }
    current->progress();
    current_ = 1 - current_;
    has_previous_ = true;
}

void MultiNodeOptimizer::backward_loss(const Variable& loss) {
    target().cleargrads();
    hooked_backward_ = false;
    const BackwardOptions backward_options{.loss_scale = actual_->loss_scale()};
    const bool stable = !target_params_.empty() && param_signature() == target_params_;
    detail::GradBuckets* set = nullptr;
    if (stable && options_.double_buffering && has_previous_) {
        set = buckets_[1 - current_].get();  // in flight since the last update: drive it
    } else if (stable && !options_.double_buffering && overlap_enabled()) {
        set = buckets(0);
        if (set != nullptr) set->reset();
    }
    if (set == nullptr) {
        loss.backward(backward_options);
        return;
    }
    Communicator& comm = *comm_;
    const bool overlap = !options_.double_buffering;
    LeafGradHookScope scope{[set, &comm, overlap](const Variable& leaf) {
        if (overlap) {
            set->grad_ready(leaf, comm);
        } else {
            set->progress();
        }
    }};
    loss.backward(backward_options);
    hooked_backward_ = overlap;
}

void MultiNodeOptimizer::new_epoch() {
    push_counters();
    actual_->new_epoch();
    mirror();
}

void MultiNodeOptimizer::add_hook(std::shared_ptr<optimizers::OptimizerHook> hook, std::string name,
                                  optimizers::HookTiming timing) {
    actual_->add_hook(std::move(hook), std::move(name), timing);
}

void MultiNodeOptimizer::remove_hook(const std::string& name) { actual_->remove_hook(name); }

void MultiNodeOptimizer::loss_scaling(int64_t interval, std::optional<double> scale) {
    actual_->loss_scaling(interval, scale);
}

std::optional<double> MultiNodeOptimizer::loss_scale() const { return actual_->loss_scale(); }

void MultiNodeOptimizer::serialize(const serializers::Serializer& serializer) {
    push_counters();
    actual_->serialize(serializer);
    mirror();
    // Loading assigns t and epoch after the whole walk (all-or-nothing): mirror them then.
    if (serializer.is_loading()) serializer.backend().defer([this] { mirror(); });
}

void MultiNodeOptimizer::push_counters() {
    if (t != mirrored_t_) actual_->t = t;
    if (epoch != mirrored_epoch_) actual_->epoch = epoch;
}

void MultiNodeOptimizer::mirror() {
    t = mirrored_t_ = actual_->t;
    epoch = mirrored_epoch_ = actual_->epoch;
}

std::shared_ptr<optimizers::Optimizer> create_multi_node_optimizer(std::shared_ptr<optimizers::Optimizer> actual,
                                                                   CommunicatorPtr comm,
                                                                   MultiNodeOptimizerOptions options) {
    return std::make_shared<MultiNodeOptimizer>(std::move(actual), std::move(comm), options);
}

}  // namespace rensa::distributed
