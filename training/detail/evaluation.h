#pragma once
// What the Evaluator and the multi-node evaluator share (internal).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/variable.h"
#include "core/reporter.h"
#include "links/link.h"

namespace rensa::training::detail {

// The target's forward, with Chainer's calling convention (one input: forward(x)).
Variable call_target(links::Link& target, const std::vector<Variable>& inputs);

// Each target as observer "<name>", its descendants as "<name>/<path>" (Chainer's
// add_observer + add_observers(namedlinks(skipself=True))).
void register_targets(Reporter& reporter, const std::map<std::string, std::shared_ptr<links::Link>>& targets);

}  // namespace rensa::training::detail
