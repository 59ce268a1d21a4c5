#pragma once
// chainermn.extensions.AllreducePersistent: averages the persistent arrays of a model
// (BatchNormalization's avg_mean / avg_var) over the ranks, so every rank evaluates with the
// same running statistics.

#include <memory>
#include <string>

#include "distributed/communicator.h"
#include "links/link.h"
#include "training/extension.h"

namespace rensa::distributed {

// Replaces every defined floating-point persistent array of `link` and its descendants by
// its mean over the ranks, in place (aliases see it), in sorted name order ("/bn1/avg_mean").
// Integer and scalar persistents (N) are left alone, as ChainerMN. Collective; every rank
// first checks that all ranks have the same names, dtypes and shapes: MpiError on every
// rank naming the first differing rank and entry otherwise.
void allreduce_persistent(links::Link& link, Communicator& comm);

// The extension form: allreduce_persistent(*model, *comm) when triggered; by default once
// per epoch and before the evaluators (priority kPriorityWriter + 1), as ChainerMN.
class AllreducePersistent : public training::Extension {
public:
    // ValueError for a null model or comm.
    AllreducePersistent(std::shared_ptr<links::Link> model, CommunicatorPtr comm);
    void operator()(training::Trainer& trainer) override;
    std::string default_name() const override { return "AllreducePersistent"; }
    training::TriggerArg default_trigger() const override { return {1, "epoch"}; }
    int priority() const override { return training::kPriorityWriter + 1; }

private:
    std::shared_ptr<links::Link> model_;
    CommunicatorPtr comm_;
};

}  // namespace rensa::distributed
