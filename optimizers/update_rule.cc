// UpdateRule (chainer.UpdateRule): one parameter's update, its hooks, state and serialization.
//
// Note [Loss scale in update rules]: a grad computed by backward(loss_scale=s) is s times
// the true one. Chainer divides param.grad in place; we replace the grad by grad / s (a new
// array), because backward may hand one grad array to several parameters and an in-place
// division would divide it more than once. The parameter keeps the unscaled grad afterwards,
// as in Chainer. The rule's own hooks and update_core see a stand-in Parameter over the same
// array and the unscaled grad, without the loss scale, so a hook that corrects for the loss
// scale (WeightDecay, Lasso) does so only at the optimizer level, where grads are still scaled.
//
// Note [Float32 master weights]: under use_fp32_update a 16-bit parameter (float16, as in
// Chainer, and bfloat16) is updated through a float32 copy, master_; after each step the
// parameter becomes master_ rounded to its dtype. An update smaller than half the 16-bit ulp
// (lr * grad below 2^-8 of the weight in bfloat16) would be lost on the parameter but
// accumulates in the master. Chainer keeps the copy (UpdateRule._fp32_param) out of its
// snapshots, so a resumed run restarts from the rounded parameter and its next step differs
// from the uninterrupted one. We save the master under the rule's key "fp32_param", beside
// "t" and the state, and take it back when a file has it: a save and load then continue
// exactly. Chainer ignores the extra key when it loads our file; a Chainer file (no key)
// loads as in Chainer, the master made afresh from the parameter at the next update.
// A master of another shape than the parameter is made afresh too; one on another device
// (a loaded one is on the host, or the model moved) is moved, keeping its precision.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/fused_update.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

namespace {

using HookList = std::vector<std::pair<std::string, std::shared_ptr<OptimizerHook>>>;

constexpr std::string_view kMasterKey = "fp32_param";

// The master under kMasterKey (Note [Float32 master weights]): saved when there is one; on
// load, taken back when the file has it, else reset (made afresh at the next update).
void serialize_master(const serializers::Serializer& serializer, Array& master) {
    if (!serializer.is_loading()) {
        if (master.defined()) serializer(kMasterKey, master);
        return;
    }
    serializer.backend().defer([&master] { master = Array(); });
    try {
        serializer(kMasterKey, Array(), [&master](const Array& value) {
            master = value.defined() ? value.astype(Dtype::kFloat32, false) : Array();
        });
    } catch (const KeyError&) {
        // Absent from a strict load (Chainer's files): nothing to take back.
    }
}

bool is_16bit(Dtype dtype) { return dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16; }

bool has_hook(const HookList& hooks, const std::string& name) {
    for (const auto& entry : hooks) {
        if (entry.first == name) return true;
    }
    return false;
}

bool erase_hook(HookList& hooks, const std::string& name) {
    for (auto it = hooks.begin(); it != hooks.end(); ++it) {
        if (it->first == name) {
            hooks.erase(it);
            return true;
        }
    }
    return false;
}

void run_hooks(const HookList& hooks, UpdateRule& rule, const links::Parameter& param) {
    for (const auto& entry : hooks) (*entry.second)(rule, param);
}

// The grad of `param` as update_core receives it: unscaled and, on the float32 path, cast.
// See Note [Loss scale in update rules].
Array working_grad(const links::Parameter& param, Dtype dtype) {
    Array grad = param.grad();
    if (grad.dtype() != dtype) grad = grad.astype(dtype);
    if (const std::optional<double> scale = param.loss_scale()) grad = ops::divide(grad, Scalar(*scale));
    return grad;
}

// A state array on `target`'s device and, when it is a float array (a loaded one may be
// stored in another float dtype), in target's dtype, as Chainer's _prepare moves it.
void conform_state(Array& value, const Array& target) {
    if (!value.defined()) return;
    if (value.device() != target.device()) value = value.to_device(target.device());
    if (value.dtype() != target.dtype() && is_float(value.dtype())) value = value.astype(target.dtype());
}

}  // namespace

UpdateRule::UpdateRule(std::shared_ptr<const Hyperparameter> parent)
    : hyperparam_{std::make_shared<Hyperparameter>(std::move(parent))} {}

void UpdateRule::add_hook(std::shared_ptr<OptimizerHook> hook, std::string name, HookTiming timing) {
    RENSA_CHECK(hook != nullptr, ValueError, "UpdateRule.add_hook: the hook is null");
    if (name.empty()) name = hook->name();
    RENSA_CHECK(!name.empty(), ValueError, "UpdateRule.add_hook: the name of the hook is not specified");
    RENSA_CHECK(!has_hook(pre_hooks_, name) && !has_hook(post_hooks_, name), ValueError, "UpdateRule.add_hook: hook \"",
                name, "\" already exists");
    if (timing == HookTiming::kAuto) timing = hook->timing();
    (timing == HookTiming::kPost ? post_hooks_ : pre_hooks_).emplace_back(std::move(name), std::move(hook));
}

void UpdateRule::remove_hook(const std::string& name) {
    RENSA_CHECK(erase_hook(pre_hooks_, name) || erase_hook(post_hooks_, name), KeyError,
                "UpdateRule.remove_hook: no hook named \"", name, "\"");
}

void UpdateRule::update(const links::Parameter& param) {
    if (!enabled || !param.is_initialized() || !param.grad().defined()) return;
    // Before anything changes (t, the state): see Note [Read-only memory] in core/storage.h.
    check_writeable(param.array(), detail::concat("update of parameter '", param.name(), "'"));
    NoBackpropMode no_graph;
    ++t;
    const Array& array = param.array();
    // See Note [Float32 master weights].
    const bool fp32 = use_fp32_update && is_16bit(array.dtype());
    if (fp32 && (!master_.defined() || master_.shape() != array.shape())) {
        master_ = array.astype(Dtype::kFloat32);
    } else if (fp32 && master_.device() != array.device()) {
        master_ = master_.to_device(array.device());
    }
    const Array target = fp32 ? master_ : array;
    const Array grad = working_grad(param, target.dtype());
    if (state.empty()) init_state(target);
    for (auto& [key, value] : state) conform_state(value, target);

    // The parameter itself when nothing changed its grad; else a stand-in over the same array.
    const bool stand_in = fp32 || param.loss_scale().has_value();
    links::Parameter work = stand_in ? links::Parameter(target, param.name()) : param;
    if (stand_in) work.set_grad(grad);

    // Hooks may read or change any array: reading one a queued update writes runs the queue
    // first (see Note [Batched fused updates] in core/ops/fused_update.h).
    run_hooks(pre_hooks_, *this, work);
    update_core(target, work.grad());
    run_hooks(post_hooks_, *this, work);

    if (fp32) {
        // master_ holds this step's result only once the queued updates ran; until then,
        // reading the parameter runs them and this copy.
        ops::after_fused_updates([array, master = master_] { array.assign(master); }, array);
    } else if (stand_in) {
        param.set_grad(work.grad());  // the unscaled (and hooked) grad, as Chainer leaves it
    }
}

// Chainer's UpdateRule.serialize: "t", (rensa only) the float32 master copy as "fp32_param"
// (Note [Float32 master weights]), then each state array. A rule without state learns
// its keys from init_state on a one-element float32 array and, when loading, takes the
// stored arrays only when every key is there (otherwise the state stays empty and is
// created at the next update).
void UpdateRule::serialize(const serializers::Serializer& serializer) {
    serializer("t", t);
    serialize_master(serializer, master_);
    if (!state.empty()) {
        for (const auto& [key, value] : state) serializer(key, value);
        return;
    }
    if (!serializer.is_loading()) return;
    init_state(ops::empty({1}, Dtype::kFloat32));
    std::vector<std::string> keys;
    for (const auto& entry : state) keys.push_back(entry.first);
    state.clear();
    auto loaded = std::make_shared<std::map<std::string, Array>>();
    const size_t n_keys = keys.size();
    for (const std::string& key : keys) {
        auto assign = [this, loaded, key, n_keys](const Array& value) {
            (*loaded)[key] = value;
            if (loaded->size() == n_keys) state = *loaded;
        };
        try {
            serializer(key, Array(), assign);
        } catch (const KeyError&) {
            if (enabled) throw;  // a disabled rule may lack its state (Chainer 7)
            return;
        }
    }
}

}  // namespace rensa::optimizers
