#pragma once
// Differentiable point-to-point communication of Variables (chainermn.functions.send,
// recv and pseudo_connect): the building blocks of model parallelism.
//
// Note [Delegate variables]: send() returns no data, only a "delegate": a 0-d float32
// Variable (value 0) whose creator is the Send node. Calling backward() on it (its seed is
// 1, like any scalar) runs Send's backward, which receives the gradient of x from the peer.
// recv() takes that delegate as an input, so on a rank that first sends and then receives
// the graph reads x -> Send -> delegate -> Recv -> y, and one backward() from y runs
// Recv's backward (send the gradient of y) before Send's (receive the gradient of x).
// pseudo_connect(delegate, actual) makes `actual` depend on the delegate without changing
// its value, so a backward() from `actual` also reaches the delegate's Send.
//
// Note [Backward order of point to point]: backward runs the nodes in reverse forward
// order along these delegate edges, so each rank issues its backward sends and receives in
// the reverse order of its forward ones. When the forward exchange was deadlock free (each
// forward send matched, in order, by a forward recv on the peer), the backward exchange is
// its mirror image: every backward recv on one rank faces a backward send on the peer in
// the same position, and two ranks never both block in recv. Recv and PseudoConnect give
// their delegate input a defined zero gradient (never "no gradient") so the backward pass
// always reaches the Send behind it; Send always receives, even when x needs no gradient,
// and Recv always sends (zeros when its output got no gradient), so the peer never waits
// for a message that never comes. Messages between two ranks keep their order (MPI's
// non-overtaking rule), so the default tag 0 is enough for pipelines.

#include <vector>

#include "autograd/variable.h"
#include "distributed/communicator.h"

namespace rensa::distributed {

// Sends x's array (its shape and dtype travel too) to `rank` and returns the delegate
// variable (See Note [Delegate variables]); its backward receives x's gradient from `rank`.
// ValueError when comm is null, rank is out of [0, size) or rank is this process's rank.
[[nodiscard]] Variable send(const Variable& x, const CommunicatorPtr& comm, int rank, int tag = 0);

// Receives an array sent by send() on `rank` as a Variable whose backward sends its
// gradient back. `delegate_variable`, when defined, becomes the input of the Recv node so
// the backward pass runs through it afterwards (See Note [Backward order of point to point]).
// ValueError as send().
[[nodiscard]] Variable recv(const CommunicatorPtr& comm, int rank, const Variable& delegate_variable = {}, int tag = 0);

// Returns `actual` unchanged (a new Variable over the same array) but connected to
// `delegate_variable`, which receives a zero gradient. ValueError when either is undefined.
[[nodiscard]] Variable pseudo_connect(const Variable& delegate_variable, const Variable& actual);
// The same for several actual variables at once (one node; ValueError when empty).
[[nodiscard]] std::vector<Variable> pseudo_connect(const Variable& delegate_variable,
                                                   const std::vector<Variable>& actual);

}  // namespace rensa::distributed
