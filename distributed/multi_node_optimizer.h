#pragma once
// The multi-node optimizer (chainermn.create_multi_node_optimizer): a decorator Optimizer
// that averages the gradients over the ranks of a communicator before the optimizer it
// wraps (the "actual" optimizer) updates.
//
// Note [Multi-node update]: like ChainerMN's _MultiNodeOptimizer, each update() first
// compares the sorted (name, shape) list of the target's parameters (None for a lazy one)
// with the previous update's. While it changes (always at the first update, and when a
// lazy Linear(None, n) was initialised by the forward just run) the step broadcasts the
// parameters and persistent arrays from rank 0 (comm->bcast_data). ChainerMN then always
// skips the update; rensa skips it only when the broadcast changed something, i.e. when
// the ranks did not already hold the same bytes (a digest of each rank's data, gathered
// before the broadcast): the grads of this step were then computed from weights that are
// gone. When every rank already agreed (a run resumed from a snapshot, ranks seeded
// alike) the grads are valid and the step updates, so a resumed run loses no update and
// ends bit for bit where the straight run does. Afterwards each update averages the grads
// through the gradient buckets (Note [Gradient buckets] in distributed/detail/
// grad_buckets.h) and calls the actual update(). Every collective is issued in the same
// order on every rank.
//
// Note [Overlap]: with .overlap, update(lossfun, args...) (what StandardUpdater calls)
// runs backward under a LeafGradHookScope: backward writes each grad into its bucket (the
// parameter's grad destination), and as soon as every grad of a bucket is final, the
// bucket's reduction starts while backward goes on. update() then starts the buckets still
// waiting (a parameter without a grad contributes zeros), waits for all, and each grad is
// the mean, an alias of its bucket slot. A plain `loss.backward(); opt.update()` works too
// (all buckets start in update()). Every communicator takes this path, "dummy" included
// (its buckets are reduced by nobody: the cost of the path without communication). With
// "pure_nccl" and "hierarchical" the buckets of CUDA parameters live on their GPU and are
// reduced by NCCL on the communication stream (Note [pure_nccl]).
//
// Note [Double buffering]: with .double_buffering (ChainerMN's), the grads of step t, which
// backward wrote into one set of buckets, are reduced in the background while step t+1
// computes its forward and backward into the other set; step t+1 then updates with the averaged
// grads of step t. The parameters therefore lag one step behind (staleness one): the
// first update after the broadcast only starts the communication and does not update.
// Communication is hidden behind a whole step instead of the backward tail.
//
// The decorator forwards to / mirrors the actual optimizer: hyperparam() is the actual
// one's object (LR shifts reach it), t and epoch are mirrored after every call (a value
// the user assigned on the decorator is pushed into the actual optimizer first), hooks,
// loss scaling and serialize() (the actual optimizer's keys, as in Chainer) go to it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "distributed/communicator.h"
#include "links/parameter.h"
#include "optimizers/optimizer.h"

namespace rensa::distributed {

namespace detail {
class GradBuckets;
using NamedParams = std::vector<std::pair<std::string, links::Parameter>>;
}  // namespace detail

struct MultiNodeOptimizerOptions {
    // Update with the previous step's averaged grads while this step's are reduced in the
    // background. See Note [Double buffering].
    bool double_buffering = false;
    // Parameters without a grad are reduced as zeros (so every rank issues the same
    // collectives) and get the averaged grad; without it they keep None.
    bool zero_fill = true;
    // Start bucket all-reduces during backward. See Note [Overlap].
    bool overlap = true;
    // Target size of one gradient bucket (per dtype).
    int64_t bucket_size_bytes = int64_t{25} << 20;
};

class MultiNodeOptimizer : public optimizers::Optimizer {
public:
    // Wraps `actual` (already set up or not); ValueError for a null optimizer or communicator.
    MultiNodeOptimizer(std::shared_ptr<optimizers::Optimizer> actual, CommunicatorPtr comm,
                       MultiNodeOptimizerOptions options = {});
    ~MultiNodeOptimizer() override;

    // Sets up the actual optimizer with `link` and starts over (next update broadcasts).
    Optimizer& setup(std::shared_ptr<links::Link> link) override;
    // One step; see Note [Multi-node update]. Collective: every rank must call it.
    void update() override;
    using Optimizer::update;

    void new_epoch() override;
    void add_hook(std::shared_ptr<optimizers::OptimizerHook> hook, std::string name = {},
                  optimizers::HookTiming timing = optimizers::HookTiming::kAuto) override;
    void remove_hook(const std::string& name) override;
    void loss_scaling(int64_t interval = 1000, std::optional<double> scale = std::nullopt) override;
    std::optional<double> loss_scale() const override;
    // The actual optimizer's state under its own keys ("t", "epoch", "l1/W/m", ...).
    void serialize(const serializers::Serializer& serializer) override;

    optimizers::Optimizer& actual_optimizer() const override { return *actual_; }
    const std::shared_ptr<optimizers::Optimizer>& actual_optimizer_ptr() const { return actual_; }
    const CommunicatorPtr& communicator() const { return comm_; }
    const MultiNodeOptimizerOptions& options() const { return options_; }

protected:
    // cleargrads + backward with the actual optimizer's loss scale; with overlap (or double
    // buffering, for MPI progress) under a leaf-grad hook. See Note [Overlap].
    void backward_loss(const Variable& loss) override;

private:
    // The target's parameters as (name, shape; nullopt for a lazy one), sorted by name.
    using ParamSignature = std::vector<std::pair<std::string, std::optional<Shape>>>;
    [[nodiscard]] ParamSignature param_signature() const;
    bool is_changed();
    // Broadcasts rank 0's data; true when it changed nothing on any rank (the grads of this
    // step are then valid for the update).
    bool broadcast_step();
    void mean_grads();
    void double_buffered_step();
    // `params` in the buckets' order (Note [Bucket order]); agreed with rank 0 when new.
    [[nodiscard]] detail::NamedParams in_bucket_order(detail::NamedParams params);
    // The current buckets, rebuilt when the bucketed parameters changed (then *fresh =
    // true); null when there is no parameter to reduce.
    detail::GradBuckets* buckets(size_t set, bool* fresh = nullptr);
    void drain();
    bool overlap_enabled() const;
    void push_counters();  // t/epoch assigned on the decorator -> the actual optimizer
    void mirror();         // the actual optimizer's t/epoch -> the decorator

    std::shared_ptr<optimizers::Optimizer> actual_;
    CommunicatorPtr comm_;
    MultiNodeOptimizerOptions options_;
    ParamSignature target_params_;  // param_signature() at the previous update
    std::unique_ptr<detail::GradBuckets> buckets_[2];
    std::vector<const VariableNode*> grad_order_;  // leaves in the order the last unhooked backward finished them
    std::vector<std::string> bucket_order_;        // parameter names in bucket order (rank 0's)
    size_t current_ = 0;                           // double buffering: the set reduced this step
    bool has_previous_ = false;                    // double buffering: the other set holds last step's grads
    bool hooked_backward_ = false;                 // the last backward_loss ran with the overlap hook
    int64_t mirrored_t_ = 0, mirrored_epoch_ = 0;
};

// chainermn.create_multi_node_optimizer(actual_optimizer, communicator, double_buffering,
// zero_fill), plus the overlap options. Returns a MultiNodeOptimizer.
[[nodiscard]] std::shared_ptr<optimizers::Optimizer> create_multi_node_optimizer(
    std::shared_ptr<optimizers::Optimizer> actual, CommunicatorPtr comm, MultiNodeOptimizerOptions options = {});

}  // namespace rensa::distributed
