#pragma once
// Leaf-gradient hooks: a callback told, during backward(), as soon as a leaf variable's
// gradient is final for this backward() call. The multi-node optimizer starts the
// all-reduce of a gradient bucket from it while backward still runs (overlap).
//
// Note [Leaf gradient readiness]: when a hook is registered, backward() first counts, for
// each leaf that requires grad, the input slots of the reachable functions that consume
// it. Each processed function decrements its leaf slots; at zero the leaf's grad is
// complete: it is stored in the variable (added to its previous grad, as backward() always
// does) and the hooks are called with the variable. Leaves some of whose consumers are
// never reached (no gradient flowed there) are reported when the pass ends. So every leaf
// that receives a grad is reported exactly once per backward(), in completion order, and
// its grad() is already set when the hook sees it. grad() (autograd/grad.h) calls no hooks.

#include <functional>
#include <vector>

#include "autograd/variable.h"

namespace rensa {

using LeafGradHook = std::function<void(const Variable& leaf)>;

// Registers `hook` on the calling thread for the scope's lifetime (nested scopes: all hooks
// run, outer first). Without any scope backward() does no extra work.
class LeafGradHookScope {
public:
    explicit LeafGradHookScope(LeafGradHook hook);
    ~LeafGradHookScope();
    LeafGradHookScope(const LeafGradHookScope&) = delete;
    LeafGradHookScope& operator=(const LeafGradHookScope&) = delete;
};

// The hooks registered on the calling thread, outer first.
const std::vector<LeafGradHook>& leaf_grad_hooks();

}  // namespace rensa
