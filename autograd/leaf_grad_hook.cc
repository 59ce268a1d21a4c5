// Leaf-gradient hook registration (the engine side is in backward.cc).

#include "autograd/leaf_grad_hook.h"

#include <utility>

#include "core/error.h"

namespace rensa {

namespace {
std::vector<LeafGradHook>& registered_hooks() {
    thread_local std::vector<LeafGradHook> hooks;
    return hooks;
}
}  // namespace

LeafGradHookScope::LeafGradHookScope(LeafGradHook hook) {
    RENSA_CHECK(static_cast<bool>(hook), ValueError, "LeafGradHookScope: the hook is empty");
    registered_hooks().push_back(std::move(hook));
}

// Scopes are not movable, so they end in reverse order of creation: the last hook is ours.
LeafGradHookScope::~LeafGradHookScope() { registered_hooks().pop_back(); }

const std::vector<LeafGradHook>& leaf_grad_hooks() { return registered_hooks(); }

}  // namespace rensa
