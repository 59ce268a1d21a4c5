#pragma once
// MpiCommunicatorBase (chainermn's MpiCommunicatorBase): the array-, object- and
// model-level collectives over one MPI communicator, shared by naive, flat and dummy.
// Subclasses choose how bcast_data moves the parameters and how multi_node_mean_grad
// reduces the gradients.

#include <memory>
#include <string>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed {

class MpiCommunicatorBase : public Communicator {
public:
    [[nodiscard]] Array allreduce(const Array& x, ReduceOp op = ReduceOp::kSum) override;
    void allreduce_inplace(const Array& buffer, ReduceOp op = ReduceOp::kSum) override;
    [[nodiscard]] std::unique_ptr<Request> iallreduce_inplace(const Array& buffer,
                                                              ReduceOp op = ReduceOp::kSum) override;
    [[nodiscard]] Array bcast(const Array& x, int root = 0) override;
    [[nodiscard]] std::vector<Array> gather(const Array& x, int root = 0) override;
    [[nodiscard]] std::vector<Array> allgather(const Array& x) override;
    [[nodiscard]] Array scatter(const std::vector<Array>& xs, int root = 0) override;
    [[nodiscard]] std::vector<Array> alltoall(const std::vector<Array>& xs) override;
    void send(const Array& x, int dest, int tag = 0) override;
    [[nodiscard]] Array recv(int source, int tag = 0) override;
    [[nodiscard]] CommunicatorPtr split(int color, int key) override;

    [[nodiscard]] std::string bcast_obj(const std::string& obj, int root = 0) override;
    [[nodiscard]] std::vector<std::string> gather_obj(const std::string& obj, int root = 0) override;
    [[nodiscard]] std::vector<std::string> allgather_obj(const std::string& obj) override;
    void send_obj(const std::string& obj, int dest, int tag = 0) override;
    [[nodiscard]] std::string recv_obj(int source, int tag = 0) override;

    void bcast_data(links::Link& link) override;
    void multi_node_mean_grad(links::Link& link, bool zero_fill = false) override;
    void barrier() override;

    // The MPI communicator (a dup owned by rensa) with its watchdog registration.
    detail::CommHandle& handle() const { return *handle_; }

protected:
    // Takes over `handle`; collective (computes the intra/inter topology).
    MpiCommunicatorBase(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options);

    // A communicator of the same kind over `handle` (for split).
    [[nodiscard]] virtual CommunicatorPtr make_same_kind(std::shared_ptr<detail::CommHandle> handle) const = 0;
    // Broadcasts `arrays` (sorted by name, identical layout on every rank) from rank 0 in
    // place. Default: one bcast per array.
    virtual void bcast_arrays(const std::vector<Array>& arrays);
    // Replaces each grad (sorted by name) by its mean over the ranks, in place.
    virtual void mean_grads(const std::vector<Array>& grads) = 0;

    // In-place reduction of a contiguous native buffer without a guard (the caller holds it);
    // with `input` (contiguous native, same shape and dtype) reduces input into buffer.
    void allreduce_raw(const Array& buffer, ReduceOp op, const Array& input = {}) const;
    // The dtype grads are reduced in (allreduce_grad_dtype, or their own).
    Dtype reduce_dtype(Dtype grad_dtype) const { return options_.allreduce_grad_dtype.value_or(grad_dtype); }

private:
    void check_rank(int r, const char* op, const char* what) const;
    std::shared_ptr<detail::CommHandle> handle_;
};

}  // namespace rensa::distributed
