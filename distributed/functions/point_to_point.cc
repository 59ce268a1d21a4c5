// Send, Recv and PseudoConnect nodes. See Note [Delegate variables] and Note [Backward
// order of point to point] in point_to_point.h.

#include "distributed/functions/point_to_point.h"

#include <memory>
#include <string>
#include <utility>

#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/creation.h"

namespace rensa::distributed {
namespace {

void check_peer(const CommunicatorPtr& comm, int rank, const char* op) {
    RENSA_CHECK(comm != nullptr, ValueError, op, ": the communicator is null");
    RENSA_CHECK(rank >= 0 && rank < comm->size(), ValueError, op, ": rank=", rank,
                " is out of range for a communicator of size ", comm->size());
    RENSA_CHECK(rank != comm->rank(), ValueError, op, ": rank=", rank,
                " is this process's own rank; it must be different, otherwise deadlock occurs");
}

// A 0-d zero used for delegates and their gradients.
Array scalar_zero(Device device) { return ops::zeros(Shape{}, Dtype::kFloat32, device); }

// A leaf that requires grad, so that a node always records its graph (ChainerMN's dummy_var).
Variable dummy_input(Device device) { return Variable(scalar_zero(device), true, "dummy_var"); }

// Inputs: x, dummy. Output: the delegate.
class Send : public FunctionNode {
public:
    Send(CommunicatorPtr comm, int peer, int tag) : comm_{std::move(comm)}, peer_{peer}, tag_{tag} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        comm_->send(xs[0], peer_, tag_);
        return {scalar_zero(xs[0].device())};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        // Always receive (See Note [Backward order of point to point]).
        const Array gx = comm_->recv(peer_, tag_);
        RENSA_CHECK(gx.shape() == input_shape(0) && gx.dtype() == input_dtype(0), distributed::MpiError,
                    "send (backward): the gradient received from rank ", peer_, " has shape ", gx.shape(),
                    " and dtype ", gx.dtype(), " but the sent variable has shape ", input_shape(0), " and dtype ",
                    input_dtype(0));
        return {Variable(gx, false), Variable{}};
    }
    std::string label() const override { return "Send"; }

private:
    CommunicatorPtr comm_;
    int peer_, tag_;
};

// Input: the delegate (or a dummy). Output: the received array.
class Recv : public FunctionNode {
public:
    Recv(CommunicatorPtr comm, int peer, int tag) : comm_{std::move(comm)}, peer_{peer}, tag_{tag} {}
    std::vector<Array> forward(const std::vector<Array>&) override {
        Array y = comm_->recv(peer_, tag_);
        shape_ = y.shape();
        dtype_ = y.dtype();
        device_ = y.device();
        return {y};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        // Always send, zeros when y got no gradient (See Note [Backward order of point to point]).
        const Array gy = gys[0].defined() ? gys[0].array() : ops::zeros(shape_, dtype_, device_);
        comm_->send(gy, peer_, tag_);
        // A defined zero, so the backward pass goes on to the Send behind the delegate.
        return {Variable(ops::zeros(input_shape(0), input_dtype(0), device_), false)};
    }
    std::string label() const override { return "Recv"; }

private:
    CommunicatorPtr comm_;
    int peer_, tag_;
    Shape shape_;
    Dtype dtype_ = Dtype::kFloat32;
    Device device_;
};

// Inputs: delegate, actual...; outputs: actual... (aliased).
class PseudoConnect : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        return std::vector<Array>(xs.begin() + 1, xs.end());
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        gxs.reserve(gys.size() + 1);
        gxs.emplace_back(ops::zeros(input_shape(0), input_dtype(0)), false);
        gxs.insert(gxs.end(), gys.begin(), gys.end());
        return gxs;
    }
    std::string label() const override { return "PseudoConnect"; }
};

}  // namespace

Variable send(const Variable& x, const CommunicatorPtr& comm, int rank, int tag) {
    check_peer(comm, rank, "send");
    RENSA_CHECK(x.defined(), ValueError, "send: x is an undefined Variable");
    Variable delegate = std::make_shared<Send>(comm, rank, tag)->apply({x, dummy_input(x.device())})[0];
    delegate.set_name("delegate_variable");
    return delegate;
}

Variable recv(const CommunicatorPtr& comm, int rank, const Variable& delegate_variable, int tag) {
    check_peer(comm, rank, "recv");
    const Variable input = delegate_variable.defined() ? delegate_variable : dummy_input(default_device());
    return std::make_shared<Recv>(comm, rank, tag)->apply({input})[0];
}

Variable pseudo_connect(const Variable& delegate_variable, const Variable& actual) {
    return pseudo_connect(delegate_variable, std::vector<Variable>{actual})[0];
}

std::vector<Variable> pseudo_connect(const Variable& delegate_variable, const std::vector<Variable>& actual) {
    RENSA_CHECK(delegate_variable.defined(), ValueError, "pseudo_connect: the delegate variable is undefined");
    RENSA_CHECK(!actual.empty(), ValueError, "pseudo_connect: no actual variables given");
    std::vector<Variable> inputs{delegate_variable};
    for (size_t i = 0; i < actual.size(); ++i) {
        RENSA_CHECK(actual[i].defined(), ValueError, "pseudo_connect: actual variable ", i, " is undefined");
        inputs.push_back(actual[i]);
    }
    return std::make_shared<PseudoConnect>()->apply(inputs);
}

}  // namespace rensa::distributed
