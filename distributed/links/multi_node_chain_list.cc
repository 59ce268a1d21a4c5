// MultiNodeChainList::forward, ChainerMN's algorithm step by step. See Note [Backward order
// of point to point] (distributed/functions/point_to_point.h) for why each delegate is
// threaded through the next communication.

#include "distributed/links/multi_node_chain_list.h"

#include <algorithm>
#include <deque>
#include <string>

#include "core/error.h"
#include "distributed/functions/point_to_point.h"

namespace rensa::distributed {
namespace {

// The state threaded through the components of one forward call.
struct Pipeline {
    const CommunicatorPtr& comm;
    std::deque<Variable> queue{};  // outputs sent to this rank itself
    Variable delegate{};           // the last delegate: the next communication depends on it
    Variable y{};                  // the model output

    Variable connect(const Variable& x) const { return delegate.defined() ? pseudo_connect(delegate, x) : x; }

    // Inputs of a component from rank_in (ChainerMN: each received input becomes the
    // delegate of the next receive; the component then starts a fresh chain).
    std::vector<Variable> receive(const MultiNodeChainList::Ranks& rank_in) {
        std::vector<Variable> xs;
        for (const int r : rank_in) {
            Variable x;
            if (r == comm->rank()) {
                RENSA_CHECK(!queue.empty(), ValueError, "MultiNodeChainList: a component receives from rank ", r,
                            " (this rank) but no earlier component sent to it");
                x = connect(queue.front());
                queue.pop_front();
            } else {
                x = recv(comm, r, delegate);
            }
            xs.push_back(x);
            delegate = x;
        }
        delegate = Variable{};  // backprop through each edge exactly once
        return xs;
    }

    // Sends x to each rank of rank_out; later sends depend on the earlier ones, so their
    // backward receives run in reverse order.
    void emit(Variable x, const MultiNodeChainList::Ranks& rank_out) {
        if (rank_out.empty()) {
            y = x;
            delegate = y;
            return;
        }
        for (size_t i = 0; i < rank_out.size(); ++i) {
            const int r = rank_out[i];
            if (r == comm->rank()) {
                x = connect(x);
                queue.push_back(x);
                delegate = x;
            } else {
                if (i > 0) x = connect(x);
                delegate = send(x, comm, r);
            }
        }
    }

    Variable result() const {
        RENSA_CHECK(queue.empty(), ValueError,
                    "MultiNodeChainList: the communication queue is not empty at the end of forward; make sure "
                    "every rank_in and rank_out correspond to each other");
        if (y.defined() && y == delegate) return y;
        if (y.defined()) return pseudo_connect(delegate, y);
        return delegate;
    }
};

Variable call_link(links::Link& link, const std::vector<Variable>& xs) {
    return xs.size() == 1 ? link.forward(xs[0]) : link.forward(xs);
}

void check_ranks(const MultiNodeChainList::Ranks& ranks, int size, const char* what) {
    for (const int r : ranks) {
        RENSA_CHECK(r >= 0 && r < size, ValueError, "MultiNodeChainList.add_link: ", what, " rank ", r,
                    " is out of range for a communicator of size ", size);
    }
}

}  // namespace

MultiNodeChainList::MultiNodeChainList(CommunicatorPtr comm) : comm_{std::move(comm)} {
    RENSA_CHECK(comm_ != nullptr, ValueError, "MultiNodeChainList: the communicator is null");
}

void MultiNodeChainList::add_link(std::shared_ptr<links::Link> link, Ranks rank_in, Ranks rank_out) {
    check_ranks(rank_in, comm_->size(), "rank_in");
    check_ranks(rank_out, comm_->size(), "rank_out");
    if (rank_out.empty()) {
        const bool has_output = std::any_of(rank_inouts_.begin(), rank_inouts_.end(),
                                            [](const auto& inout) { return inout.second.empty(); });
        RENSA_CHECK(!has_output, ValueError,
                    "MultiNodeChainList.add_link: only one component may have no rank_out (the model output)");
    }
    links::ChainList::add_link(std::move(link));
    rank_inouts_.emplace_back(std::move(rank_in), std::move(rank_out));
}

Variable MultiNodeChainList::forward(const std::vector<Variable>& xs) {
    Pipeline pipe{comm_};
    for (size_t i = 0; i < rank_inouts_.size(); ++i) {
        const auto& [rank_in, rank_out] = rank_inouts_[i];
        links::Link& f = (*this)[static_cast<int64_t>(i)];
        Variable x;
        if (!rank_in.empty()) {
            x = call_link(f, pipe.receive(rank_in));
        } else if (i == 0 || !pipe.delegate.defined() || xs.empty()) {
            x = call_link(f, xs);
        } else {
            // Not the first component: keep the backward path to the previous ones.
            x = call_link(f, pseudo_connect(pipe.delegate, xs));
        }
        pipe.emit(x, rank_out);
    }
    return pipe.result();
}

}  // namespace rensa::distributed
