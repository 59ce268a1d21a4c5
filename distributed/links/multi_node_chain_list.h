#pragma once
// MultiNodeChainList (chainermn.MultiNodeChainList): a ChainList whose components run on
// different ranks of a communicator and exchange their inputs and outputs with
// differentiable send/recv (distributed/functions/point_to_point.h).
//
// Each process builds its own list with the components it runs. A component has a
// rank_in (where its inputs come from: the ranks it receives from, in order, or none: the
// list's own inputs) and a rank_out (where its output goes: the ranks it sends it to, in
// order, or none: it is the model output). Forward chains the components through delegate
// variables so that one backward() on every rank runs the whole pipeline backward (See Note
// [Backward order of point to point]). Like ChainerMN's, forward returns the model output,
// connected to the last delegate, or only the delegate on a rank without model output;
// call backward() on what it returns.
//
//   // rank 0                                      // rank 1
//   list.add_link(stage0, {}, {1});                list.add_link(stage1, {0}, {0});
//   list.add_link(identity, {1}, {});
//   loss = F::softmax_cross_entropy(list(x), t);   Variable d = list();
//   loss.backward();                               d.backward();

#include <memory>
#include <utility>
#include <vector>

#include "distributed/communicator.h"
#include "links/chain.h"

namespace rensa::distributed {

class MultiNodeChainList : public links::Cloneable<MultiNodeChainList, links::ChainList> {
public:
    // Ranks a component receives from or sends to, in order; empty: none (the list's own
    // inputs / the model output). A rank equal to this process's passes through a local queue.
    using Ranks = std::vector<int>;

    // ValueError when comm is null.
    explicit MultiNodeChainList(CommunicatorPtr comm);

    // Appends a component. ValueError for a rank out of [0, size) or a second component
    // without rank_out (only one may produce the model output).
    void add_link(std::shared_ptr<links::Link> link, Ranks rank_in = {}, Ranks rank_out = {});

    // Runs the components in order (See the header comment). ValueError when a component
    // sent to this rank itself and no later component received it.
    Variable forward(const Variable& x) override { return forward(std::vector<Variable>{x}); }
    Variable forward(const std::vector<Variable>& xs) override;

    const CommunicatorPtr& communicator() const { return comm_; }
    const std::vector<std::pair<Ranks, Ranks>>& rank_inouts() const { return rank_inouts_; }

private:
    CommunicatorPtr comm_;
    std::vector<std::pair<Ranks, Ranks>> rank_inouts_;
};

}  // namespace rensa::distributed
