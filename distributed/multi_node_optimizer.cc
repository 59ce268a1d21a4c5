#include "distributed/multi_node_optimizer.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "autograd/leaf_grad_hook.h"
#include "core/error.h"
#include "distributed/detail/grad_buckets.h"
#include "distributed/detail/link_data.h"

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
    if (is_changed() && !broadcast_step()) {
        // The grads were computed from weights the broadcast replaced: no update.
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

bool MultiNodeOptimizer::broadcast_step() {
    drain();  // requests a hooked backward started (every rank started the same ones)
    const bool agreed = detail::same_data_on_every_rank(*comm_, target());
    comm_->bcast_data(target());
    return agreed;
}

bool MultiNodeOptimizer::overlap_enabled() const { return options_.overlap; }

// Note [Bucket order]: gradient buckets start in index order on every rank, so bucket 0
// should hold the grads backward finishes first. When no layout exists yet, backward_loss
// records the order in which backward completes the leaves (a LeafGradHookScope); the
// layout takes the parameters in that order (those never seen, e.g. after a plain
// loss.backward(), last, in descending name order: Chainer's names usually grow with
// depth). Backward may take other roads on other ranks, so rank 0's order is broadcast and
// used by all. The order is kept while the parameter set stays the same.
detail::NamedParams MultiNodeOptimizer::in_bucket_order(detail::NamedParams params) {
    std::unordered_map<std::string, size_t> position;
    for (size_t i = 0; i < bucket_order_.size(); ++i) position.emplace(bucket_order_[i], i);
    const bool known =
        params.size() == bucket_order_.size() &&
        std::all_of(params.begin(), params.end(), [&](const auto& p) { return position.count(p.first); });
    if (!known) {  // a new parameter set: rank 0's order of its last backward
        std::unordered_map<const VariableNode*, size_t> seen;
        for (size_t i = 0; i < grad_order_.size(); ++i) seen.emplace(grad_order_[i], i);
        std::stable_sort(params.begin(), params.end(), [&](const auto& a, const auto& b) {
            const auto ia = seen.find(a.second.node().get()), ib = seen.find(b.second.node().get());
            const size_t ra = ia == seen.end() ? seen.size() : ia->second;
            const size_t rb = ib == seen.end() ? seen.size() : ib->second;
            return ra != rb ? ra < rb : a.first > b.first;  // never seen: descending names
        });
        std::ostringstream mine;
        for (const auto& [name, param] : params) mine << name << '\n';
        std::istringstream root{comm_->bcast_obj(mine.str(), 0)};
        bucket_order_.clear();
        position.clear();
        for (std::string name; std::getline(root, name);) {
            position.emplace(name, bucket_order_.size());
            bucket_order_.push_back(name);
        }
        RENSA_CHECK(
            bucket_order_.size() == params.size() &&
                std::all_of(params.begin(), params.end(), [&](const auto& p) { return position.count(p.first); }),
            distributed::MpiError, "multi-node optimizer: rank ", comm_->rank(),
            " has other parameters (names) than rank 0 for the gradient buckets");
    }
    std::sort(params.begin(), params.end(),
              [&](const auto& a, const auto& b) { return position.at(a.first) < position.at(b.first); });
    return params;
}

detail::GradBuckets* MultiNodeOptimizer::buckets(size_t set, bool* fresh) {
    std::unique_ptr<detail::GradBuckets>& slot = buckets_[set];
    detail::NamedParams params = detail::sorted_params(target(), /*updating_only=*/true);
    if (params.empty()) {
        slot.reset();
        return nullptr;
    }
    params = in_bucket_order(std::move(params));
    if (slot && slot->matches(params)) return slot.get();
    slot.reset();
    // Collective: every rank rebuilds at the same update (the parameter sets agree).
    slot = std::make_unique<detail::GradBuckets>(std::move(params), *comm_,
                                                 comm_->bucket_bytes(options_.bucket_size_bytes));
    slot->reset();
    if (fresh != nullptr) *fresh = true;
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
    bool fresh = false;
    detail::GradBuckets* set = buckets(0, &fresh);
    if (set == nullptr) return;
    if (!hooked) set->reset();
    set->start_all();
    set->finish(options_.zero_fill);
    if (fresh) set->install_destinations();  // the next backward writes into the buckets
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
    current->start_all();  // this step's grads, before the previous ones become the grads
    if (previous != nullptr) {
        previous->finish(options_.zero_fill);
        actual_->update();
    }
    current->progress();
    current_ = 1 - current_;
    has_previous_ = true;
    // The next backward writes into the other set, whose grads the update just consumed.
    bool fresh = false;
    if (detail::GradBuckets* next = buckets(current_, &fresh); next != nullptr) next->install_destinations();
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
    if (set == nullptr) {  // no layout yet: learn the order backward finishes the grads in
        grad_order_.clear();
        LeafGradHookScope scope{[this](const Variable& leaf) { grad_order_.push_back(leaf.node().get()); }};
        loss.backward(backward_options);
        return;
    }
    const bool overlap = !options_.double_buffering;
    LeafGradHookScope scope{[set, overlap](const Variable& leaf) {
        if (overlap) {
            set->grad_ready(leaf);
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
