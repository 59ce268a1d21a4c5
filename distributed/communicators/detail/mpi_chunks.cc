#include "distributed/communicators/detail/mpi_chunks.h"

#include <algorithm>
#include <climits>

#include "core/error.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {
namespace {

int64_t g_max_message_bytes = (INT_MAX / 64) * 64;

int comm_size(MPI_Comm comm) {
    int size = 0;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    return size;
}

int comm_rank(MPI_Comm comm) {
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    return rank;
}

// Bytes each rank may contribute per round so that a round's total fits one message.
int64_t round_bytes(int size) { return std::max<int64_t>(1, g_max_message_bytes / size); }

// The part of a block of `total` bytes that round `k` carries.
int piece(int64_t total, int64_t k, int64_t per_round) {
    return static_cast<int>(std::clamp<int64_t>(total - k * per_round, 0, per_round));
}

int64_t rounds_for(int64_t max_total, int64_t per_round) { return (max_total + per_round - 1) / per_round; }

std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> displs(counts.size(), 0);
    for (size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
    return displs;
}

std::vector<int64_t> allgather_sizes(MPI_Comm comm, int64_t mine) {
    std::vector<int64_t> sizes(static_cast<size_t>(comm_size(comm)));
    check_mpi(MPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm), "MPI_Allgather");
    return sizes;
}

// Round `k` of a gather: each rank's piece concatenated on root (every rank when all).
void gather_round(MPI_Comm comm, const std::string& block, const std::vector<int64_t>& sizes, int64_t k,
                  int64_t per_round, int root, std::vector<std::string>& out) {
    const bool all = root < 0;
    std::vector<int> counts(sizes.size());
    for (size_t r = 0; r < sizes.size(); ++r) counts[r] = piece(sizes[r], k, per_round);
    const std::vector<int> displs = displacements(counts);
    std::string buffer(static_cast<size_t>(displs.back() + counts.back()), '\0');
    const int mine = piece(static_cast<int64_t>(block.size()), k, per_round);
    const char* send = block.data() + std::min<int64_t>(k * per_round, static_cast<int64_t>(block.size()));
    if (all) {
        check_mpi(MPI_Allgatherv(send, mine, MPI_BYTE, buffer.data(), counts.data(), displs.data(), MPI_BYTE, comm),
                  "MPI_Allgatherv");
    } else {
        check_mpi(MPI_Gatherv(send, mine, MPI_BYTE, buffer.data(), counts.data(), displs.data(), MPI_BYTE, root, comm),
                  "MPI_Gatherv");
    }
    if (!all && comm_rank(comm) != root) return;
    for (size_t r = 0; r < sizes.size(); ++r) out[r].append(buffer, static_cast<size_t>(displs[r]), counts[r]);
}

std::vector<std::string> gather_impl(MPI_Comm comm, const std::string& block, int root) {
    const std::vector<int64_t> sizes = allgather_sizes(comm, static_cast<int64_t>(block.size()));
    const int64_t per_round = round_bytes(static_cast<int>(sizes.size()));
    const int64_t rounds = rounds_for(*std::max_element(sizes.begin(), sizes.end()), per_round);
    const bool receives = root < 0 || comm_rank(comm) == root;
    std::vector<std::string> out(receives ? sizes.size() : 0);
    for (size_t r = 0; r < out.size(); ++r) out[r].reserve(static_cast<size_t>(sizes[r]));
    for (int64_t k = 0; k < rounds; ++k) gather_round(comm, block, sizes, k, per_round, root, out);
    return out;
}

}  // namespace

int64_t max_message_bytes() { return g_max_message_bytes; }

void set_max_message_bytes(int64_t bytes) {
    RENSA_CHECK(bytes >= 16 && bytes <= INT_MAX, ValueError, "set_max_message_bytes: ", bytes,
                " bytes is outside [16, INT_MAX]");
    g_max_message_bytes = bytes;
}

int64_t chunk_elements(int64_t itemsize) { return std::max<int64_t>(1, g_max_message_bytes / itemsize); }

void allreduce_chunked(MPI_Comm comm, const void* send, void* recv, int64_t count, MPI_Datatype type, int64_t itemsize,
                       MPI_Op op) {
    const int64_t step = chunk_elements(itemsize);
    const auto* in = static_cast<const char*>(send);
    auto* out = static_cast<char*>(recv);
    for (int64_t begin = 0; begin < count; begin += step) {
        const int n = static_cast<int>(std::min(step, count - begin));
        const void* from = in == nullptr ? MPI_IN_PLACE : in + begin * itemsize;
        check_mpi(MPI_Allreduce(from, out + begin * itemsize, n, type, op, comm), "MPI_Allreduce");
    }
}

void bcast_chunked(MPI_Comm comm, void* data, int64_t nbytes, int root) {
    auto* bytes = static_cast<char*>(data);
    for (int64_t begin = 0; begin < nbytes; begin += g_max_message_bytes) {
        const int n = static_cast<int>(std::min(g_max_message_bytes, nbytes - begin));
        check_mpi(MPI_Bcast(bytes + begin, n, MPI_BYTE, root, comm), "MPI_Bcast");
    }
}

void send_chunked(MPI_Comm comm, const void* data, int64_t nbytes, int dest, int tag) {
    const auto* bytes = static_cast<const char*>(data);
    for (int64_t begin = 0; begin < nbytes; begin += g_max_message_bytes) {
        const int n = static_cast<int>(std::min(g_max_message_bytes, nbytes - begin));
        check_mpi(MPI_Send(bytes + begin, n, MPI_BYTE, dest, tag, comm), "MPI_Send");
    }
}

void recv_chunked(MPI_Comm comm, void* data, int64_t nbytes, int source, int tag) {
    auto* bytes = static_cast<char*>(data);
    for (int64_t begin = 0; begin < nbytes; begin += g_max_message_bytes) {
        const int n = static_cast<int>(std::min(g_max_message_bytes, nbytes - begin));
        check_mpi(MPI_Recv(bytes + begin, n, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    }
}

std::vector<std::string> gather_bytes(MPI_Comm comm, const std::string& block, int root) {
    return gather_impl(comm, block, root);
}

std::vector<std::string> allgather_bytes(MPI_Comm comm, const std::string& block) {
    return gather_impl(comm, block, -1);
}

std::string scatter_bytes(MPI_Comm comm, const std::vector<std::string>& blocks, int root) {
    const int size = comm_size(comm);
    const bool is_root = comm_rank(comm) == root;
    std::vector<int64_t> sizes(static_cast<size_t>(size), 0);
    if (is_root) {
        for (int r = 0; r < size; ++r) sizes[r] = static_cast<int64_t>(blocks[r].size());
    }
    check_mpi(MPI_Bcast(sizes.data(), size, MPI_INT64_T, root, comm), "MPI_Bcast");
    const int64_t per_round = round_bytes(size);
    const int64_t rounds = rounds_for(*std::max_element(sizes.begin(), sizes.end()), per_round);
    std::string mine;
    mine.reserve(static_cast<size_t>(sizes[static_cast<size_t>(comm_rank(comm))]));
    for (int64_t k = 0; k < rounds; ++k) {
        std::vector<int> counts(static_cast<size_t>(size));
        for (int r = 0; r < size; ++r) counts[r] = piece(sizes[r], k, per_round);
        const std::vector<int> displs = displacements(counts);
        std::string buffer;
        if (is_root) {
            for (int r = 0; r < size; ++r) {
                buffer.append(blocks[r], static_cast<size_t>(std::min<int64_t>(k * per_round, sizes[r])), counts[r]);
            }
        }
        std::string piece_here(static_cast<size_t>(counts[static_cast<size_t>(comm_rank(comm))]), '\0');
        check_mpi(MPI_Scatterv(buffer.data(), counts.data(), displs.data(), MPI_BYTE, piece_here.data(),
                               static_cast<int>(piece_here.size()), MPI_BYTE, root, comm),
                  "MPI_Scatterv");
        mine += piece_here;
    }
    return mine;
}

std::vector<std::string> alltoall_bytes(MPI_Comm comm, const std::vector<std::string>& blocks) {
    const int size = comm_size(comm);
    std::vector<int64_t> send_sizes(static_cast<size_t>(size)), recv_sizes(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) send_sizes[r] = static_cast<int64_t>(blocks[r].size());
    check_mpi(MPI_Alltoall(send_sizes.data(), 1, MPI_INT64_T, recv_sizes.data(), 1, MPI_INT64_T, comm), "MPI_Alltoall");
    int64_t largest = *std::max_element(send_sizes.begin(), send_sizes.end());
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    const int64_t per_round = round_bytes(size);
    std::vector<std::string> out(static_cast<size_t>(size));
    for (int64_t k = 0; k < rounds_for(largest, per_round); ++k) {
        std::vector<int> send_counts(static_cast<size_t>(size)), recv_counts(static_cast<size_t>(size));
        std::string send;
        for (int r = 0; r < size; ++r) {
            send_counts[r] = piece(send_sizes[r], k, per_round);
            recv_counts[r] = piece(recv_sizes[r], k, per_round);
            send.append(blocks[r], static_cast<size_t>(std::min<int64_t>(k * per_round, send_sizes[r])),
                        send_counts[r]);
        }
        const std::vector<int> send_displs = displacements(send_counts), recv_displs = displacements(recv_counts);
        std::string recv(static_cast<size_t>(recv_displs.back() + recv_counts.back()), '\0');
        check_mpi(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_BYTE, recv.data(),
                                recv_counts.data(), recv_displs.data(), MPI_BYTE, comm),
                  "MPI_Alltoallv");
        for (int r = 0; r < size; ++r) out[r].append(recv, static_cast<size_t>(recv_displs[r]), recv_counts[r]);
    }
    return out;
}

std::string bcast_bytes(MPI_Comm comm, const std::string& bytes, int root) {
    int64_t n = comm_rank(comm) == root ? static_cast<int64_t>(bytes.size()) : 0;
    check_mpi(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm), "MPI_Bcast");
    std::string out = comm_rank(comm) == root ? bytes : std::string(static_cast<size_t>(n), '\0');
    bcast_chunked(comm, out.data(), n, root);
    return out;
}

}  // namespace rensa::distributed::detail
