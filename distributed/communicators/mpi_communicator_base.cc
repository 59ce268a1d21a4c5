#include "distributed/communicators/mpi_communicator_base.h"

#include <array>
#include <cstring>

#include "core/ops/elementwise.h"
#include "distributed/communicators/detail/array_codec.h"
#include "distributed/communicators/detail/iallreduce.h"
#include "distributed/communicators/detail/mpi_chunks.h"
#include "distributed/communicators/detail/reduce_ops.h"
#include "distributed/detail/grad_buckets.h"
#include "distributed/detail/signature_check.h"

namespace rensa::distributed {
namespace {

using detail::CallSignature;
using detail::check_reducible;
using detail::divide_inplace;
using detail::mpi_reduce;
using detail::OpGuard;

std::vector<Array> decode_all(const std::vector<std::string>& blocks, Device device) {
    std::vector<Array> out;
    out.reserve(blocks.size());
    for (const std::string& block : blocks) out.push_back(detail::decode_array(block).to_device(device));
    return out;
}

}  // namespace

MpiCommunicatorBase::MpiCommunicatorBase(std::shared_ptr<detail::CommHandle> handle, CommunicatorOptions options)
    : handle_{std::move(handle)} {
    options_ = options;
    rank_ = handle_->rank();
    size_ = handle_->size();
    intra_handle_ = handle_->split_shared();
    intra_rank_ = intra_handle_->rank();
    intra_size_ = intra_handle_->size();
    inter_handle_ = handle_->split(intra_rank_, rank_);
    inter_rank_ = inter_handle_->rank();
    inter_size_ = inter_handle_->size();
    std::array<int, 2> sizes{intra_size_, -intra_size_};  // min and -max of the node sizes
    const detail::OpGuard guard{*handle_, {.op = "topology", .dtype = Dtype::kInt32, .shape = {2}}};
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, sizes.data(), 2, MPI_INT, MPI_MIN, handle_->comm()), "MPI_Allreduce");
    uniform_nodes_ = sizes[0] == -sizes[1];
}

MpiCommunicatorBase::~MpiCommunicatorBase() = default;

void MpiCommunicatorBase::check_rank(int r, const char* op, const char* what) const {
    RENSA_CHECK(r >= 0 && r < size_, IndexError, op, ": ", what, " ", r, " is out of range for a communicator of size ",
                size_);
}

void MpiCommunicatorBase::allreduce_raw(const Array& buffer, ReduceOp op, const Array& input) const {
    detail::allreduce_chunked(handle_->comm(), input.defined() ? input.raw_data() : nullptr, buffer.raw_data(),
                              buffer.size(), detail::mpi_datatype(buffer.dtype()), buffer.itemsize(),
                              detail::mpi_op(mpi_reduce(op), buffer.dtype()));
    if (op == ReduceOp::kMean) divide_inplace(buffer, size_);
}

// See Note [Signature check].
void MpiCommunicatorBase::checked_allreduce(const OpGuard& guard, const CallSignature& signature, const Array& buffer,
                                            ReduceOp op, const Array& input) const {
    if (!detail::signature_check_enabled() || size_ == 1) return allreduce_raw(buffer, op, input);
    detail::Envelope envelope = detail::make_envelope(signature);
    const Array& source = input.defined() ? input : buffer;
    const bool inline_data =
        detail::put_inline(envelope, source.raw_data(), buffer.dtype(), buffer.size(), mpi_reduce(op));
    detail::exchange_envelope(*handle_, guard.sequence(), signature, envelope);
    if (!inline_data) return allreduce_raw(buffer, op, input);
    std::memcpy(buffer.raw_data(), envelope.payload, static_cast<size_t>(buffer.nbytes()));
    if (op == ReduceOp::kMean) divide_inplace(buffer, size_);
}

void MpiCommunicatorBase::check_call(const OpGuard& guard, const CallSignature& signature) const {
    detail::check_signature(*handle_, guard.sequence(), signature);
}

Array MpiCommunicatorBase::allreduce(const Array& x, ReduceOp op) {
    check_reducible(x, op, "allreduce");
    const CallSignature signature{
        .op = "allreduce", .dtype = x.dtype(), .shape = x.shape(), .reduce = static_cast<int>(op)};
    const OpGuard guard{*handle_, signature};
    // Reduces from the input into a new array: no copy of x when it is contiguous and native.
    const Array input = detail::host_contiguous(x);
    const Array buffer = Array::empty(x.shape(), x.dtype(), Device::native());
    checked_allreduce(guard, signature, buffer, op, input);
    return buffer.to_device(x.device());
}

void MpiCommunicatorBase::allreduce_inplace(const Array& buffer, ReduceOp op) {
    check_reducible(buffer, op, "allreduce_inplace");
    check_writeable(buffer, "allreduce_inplace");
    RENSA_CHECK(buffer.device() == Device::native() && buffer.is_contiguous(), ValueError,
                "allreduce_inplace: the buffer must be contiguous and native, got ", buffer.device(),
                buffer.is_contiguous() ? " contiguous" : " non-contiguous");
    const CallSignature signature{
        .op = "allreduce_inplace", .dtype = buffer.dtype(), .shape = buffer.shape(), .reduce = static_cast<int>(op)};
    const OpGuard guard{*handle_, signature};
    checked_allreduce(guard, signature, buffer, op);
}

std::unique_ptr<Request> MpiCommunicatorBase::iallreduce_inplace(const Array& buffer, ReduceOp op) {
    check_reducible(buffer, op, "iallreduce_inplace");
    check_writeable(buffer, "iallreduce_inplace");
    RENSA_CHECK(buffer.device() == Device::native() && buffer.is_contiguous(), ValueError,
                "iallreduce_inplace: the buffer must be contiguous and native, got ", buffer.device(),
                buffer.is_contiguous() ? " contiguous" : " non-contiguous");
    return detail::start_iallreduce(handle_, iallreduce_lane_, buffer, op);
}

Array MpiCommunicatorBase::bcast(const Array& x, int root) {
    check_rank(root, "bcast", "root");
    detail::ArrayHeader header{};
    std::string root_error;
    if (rank_ == root) {
        try {
            header = detail::make_header(x, "bcast");
        } catch (const DimensionError& e) {
            header[1] = -2;  // told to every rank below, so that none of them hangs
            root_error = e.what();
        }
    }
    const CallSignature signature{.op = "bcast", .root = root};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    detail::check_mpi(MPI_Bcast(header.data(), static_cast<int>(header.size()), MPI_INT64_T, root, handle_->comm()),
                      "MPI_Bcast");
    RENSA_CHECK(header[1] != -1, ValueError, "bcast: the root (rank ", root, ") passed an undefined array");
    RENSA_CHECK(header[1] != -2, DimensionError,
                root_error.empty() ? rensa::detail::concat("bcast: the root (rank ", root, ") passed an array of over ",
                                                           detail::kMaxHeaderDims, " dimensions")
                                   : root_error);
    const Array data = rank_ == root ? detail::host_contiguous(x) : detail::empty_from_header(header);
    detail::bcast_chunked(handle_->comm(), data.raw_data(), data.nbytes(), root);
    if (rank_ == root) return x.copy();
    return data.to_device(x.defined() ? x.device() : default_device());
}

std::vector<Array> MpiCommunicatorBase::gather(const Array& x, int root) {
    check_rank(root, "gather", "root");
    const std::string block = detail::encode_array(x, "gather");
    const CallSignature signature{.op = "gather", .root = root};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    return decode_all(detail::gather_bytes(handle_->comm(), block, root), x.device());
}

std::vector<Array> MpiCommunicatorBase::allgather(const Array& x) {
    const std::string block = detail::encode_array(x, "allgather");
    const CallSignature signature{.op = "allgather"};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    return decode_all(detail::allgather_bytes(handle_->comm(), block), x.device());
}

Array MpiCommunicatorBase::scatter(const std::vector<Array>& xs, int root) {
    check_rank(root, "scatter", "root");
    // The root encodes first and tells every rank whether its input is good (count -1 when
    // an array cannot be sent), so that bad input raises everywhere instead of hanging.
    int64_t count = rank_ == root ? static_cast<int64_t>(xs.size()) : 0;
    std::vector<std::string> blocks;
    std::string root_error;
    if (rank_ == root && count == size_) {
        try {
            for (const Array& x : xs) blocks.push_back(detail::encode_array(x, "scatter"));
        } catch (const Error& e) {
            count = -1;
            root_error = e.what();
        }
    }
    const CallSignature signature{.op = "scatter", .root = root};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    detail::check_mpi(MPI_Bcast(&count, 1, MPI_INT64_T, root, handle_->comm()), "MPI_Bcast");
    RENSA_CHECK(count != -1, ValueError,
                root_error.empty() ? rensa::detail::concat("scatter: the root (rank ", root, ") passed a bad array")
                                   : root_error);
    RENSA_CHECK(count == size_, ValueError, "scatter: the root (rank ", root, ") passed ", count,
                " arrays but the communicator has ", size_, " ranks");
    const Array out = detail::decode_array(detail::scatter_bytes(handle_->comm(), blocks, root));
    return rank_ == root ? out.to_device(xs[static_cast<size_t>(rank_)].device()) : out.to_device(default_device());
}

std::vector<Array> MpiCommunicatorBase::alltoall(const std::vector<Array>& xs) {
    const CallSignature signature{.op = "alltoall"};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    // Agree on the input's validity first, so that every rank raises together.
    int bad_rank = static_cast<int64_t>(xs.size()) == size_ ? size_ : rank_;
    detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &bad_rank, 1, MPI_INT, MPI_MIN, handle_->comm()), "MPI_Allreduce");
    RENSA_CHECK(bad_rank == size_, ValueError, "alltoall: rank ", bad_rank,
                " did not pass one array per rank (the communicator has ", size_, " ranks",
                bad_rank == rank_ ? rensa::detail::concat("; rank ", rank_, " passed ", xs.size()) : std::string(),
                ")");
    std::vector<std::string> blocks;
    for (const Array& x : xs) blocks.push_back(detail::encode_array(x, "alltoall"));
    return decode_all(detail::alltoall_bytes(handle_->comm(), blocks), xs.empty() ? default_device() : xs[0].device());
}

void MpiCommunicatorBase::send(const Array& x, int dest, int tag) {
    check_rank(dest, "send", "dest");
    const detail::ArrayHeader header = detail::make_header(x, "send");
    RENSA_CHECK(header[1] >= 0, ValueError, "send: the array is undefined");
    const Array data = detail::host_contiguous(x);
    OpGuard guard{*handle_, {.op = "send", .dtype = x.dtype(), .shape = x.shape(), .root = dest, .collective = false}};
    detail::check_mpi(MPI_Send(header.data(), static_cast<int>(header.size()), MPI_INT64_T, dest, tag, handle_->comm()),
                      "MPI_Send");
    detail::send_chunked(handle_->comm(), data.raw_data(), data.nbytes(), dest, tag);
}

Array MpiCommunicatorBase::recv(int source, int tag) {
    check_rank(source, "recv", "source");
    OpGuard guard{*handle_, {.op = "recv", .root = source, .collective = false}};
    detail::ArrayHeader header{};
    detail::check_mpi(MPI_Recv(header.data(), static_cast<int>(header.size()), MPI_INT64_T, source, tag,
                               handle_->comm(), MPI_STATUS_IGNORE),
                      "MPI_Recv");
    const Array data = detail::empty_from_header(header);
    detail::recv_chunked(handle_->comm(), data.raw_data(), data.nbytes(), source, tag);
    return data.to_device(default_device());
}

// Colors and keys differ between ranks by design: the check compares the operation only.
CommunicatorPtr MpiCommunicatorBase::split(int color, int key) {
    {
        const CallSignature signature{.op = "split"};
        const OpGuard guard{*handle_, signature};
        check_call(guard, signature);
    }
    return make_same_kind(handle_->split(color, key));
}

std::string MpiCommunicatorBase::bcast_obj(const std::string& obj, int root) {
    check_rank(root, "bcast_obj", "root");
    const CallSignature signature{.op = "bcast_obj", .root = root};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    return detail::bcast_bytes(handle_->comm(), obj, root);
}

std::vector<std::string> MpiCommunicatorBase::gather_obj(const std::string& obj, int root) {
    check_rank(root, "gather_obj", "root");
    const CallSignature signature{.op = "gather_obj", .root = root};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    return detail::gather_bytes(handle_->comm(), obj, root);
}

std::vector<std::string> MpiCommunicatorBase::allgather_obj(const std::string& obj) {
    const CallSignature signature{.op = "allgather_obj"};
    const OpGuard guard{*handle_, signature};
    check_call(guard, signature);
    return detail::allgather_bytes(handle_->comm(), obj);
}

void MpiCommunicatorBase::send_obj(const std::string& obj, int dest, int tag) {
    check_rank(dest, "send_obj", "dest");
    OpGuard guard{*handle_, {.op = "send_obj", .root = dest, .collective = false}};
    int64_t n = static_cast<int64_t>(obj.size());
    detail::check_mpi(MPI_Send(&n, 1, MPI_INT64_T, dest, tag, handle_->comm()), "MPI_Send");
    detail::send_chunked(handle_->comm(), obj.data(), n, dest, tag);
}

std::string MpiCommunicatorBase::recv_obj(int source, int tag) {
    check_rank(source, "recv_obj", "source");
    OpGuard guard{*handle_, {.op = "recv_obj", .root = source, .collective = false}};
    int64_t n = 0;
    detail::check_mpi(MPI_Recv(&n, 1, MPI_INT64_T, source, tag, handle_->comm(), MPI_STATUS_IGNORE), "MPI_Recv");
    std::string obj(static_cast<size_t>(n), '\0');
    detail::recv_chunked(handle_->comm(), obj.data(), n, source, tag);
    return obj;
}

void MpiCommunicatorBase::barrier() {
    const CallSignature signature{.op = "barrier"};
    const OpGuard guard{*handle_, signature};
    // The check's all-reduce is itself a barrier: no rank leaves it before every rank entered.
    if (detail::signature_check_enabled() && size_ > 1) return check_call(guard, signature);
    detail::check_mpi(MPI_Barrier(handle_->comm()), "MPI_Barrier");
}

}  // namespace rensa::distributed
