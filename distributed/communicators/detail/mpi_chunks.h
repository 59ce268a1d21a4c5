#pragma once
// Chunked MPI primitives under the communicators (internal). MPI counts and displacements
// are ints, so every message is cut into pieces of at most max_message_bytes() bytes; the
// limit is a variable so that tests exercise the chunking with tiny limits.
//
// None of these take an OpGuard: the caller (one user-level collective) holds it. Every
// MPI status goes through check_mpi.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rensa::distributed::detail {

// Largest message in bytes (default INT_MAX rounded down to 64). Must be the same on every
// rank; set_max_message_bytes throws ValueError below 16 bytes.
int64_t max_message_bytes();
void set_max_message_bytes(int64_t bytes);

// Element count of one chunk of `itemsize`-byte elements (at least 1).
int64_t chunk_elements(int64_t itemsize);

// MPI_Allreduce of `count` elements, chunk by chunk: from `send` into `recv`, or in place in
// `recv` when send is null.
void allreduce_chunked(MPI_Comm comm, const void* send, void* recv, int64_t count, MPI_Datatype type, int64_t itemsize,
                       MPI_Op op);
// MPI_Bcast of `nbytes` bytes, chunk by chunk.
void bcast_chunked(MPI_Comm comm, void* data, int64_t nbytes, int root);
// Blocking point to point of `nbytes` bytes, chunk by chunk (same tag for every chunk).
void send_chunked(MPI_Comm comm, const void* data, int64_t nbytes, int dest, int tag);
void recv_chunked(MPI_Comm comm, void* data, int64_t nbytes, int source, int tag);

// Byte blocks of differing sizes. Sizes are exchanged first (counts first), then the data
// travels in rounds whose total stays under the chunk limit.
// gather: root gets every rank's block in rank order; others get an empty vector.
[[nodiscard]] std::vector<std::string> gather_bytes(MPI_Comm comm, const std::string& block, int root);
[[nodiscard]] std::vector<std::string> allgather_bytes(MPI_Comm comm, const std::string& block);
// scatter: blocks (size() of them) read on root only; returns this rank's block.
[[nodiscard]] std::string scatter_bytes(MPI_Comm comm, const std::vector<std::string>& blocks, int root);
// alltoall: blocks[j] goes to rank j; returns what each rank sent here, in rank order.
[[nodiscard]] std::vector<std::string> alltoall_bytes(MPI_Comm comm, const std::vector<std::string>& blocks);
// Byte string from root to every rank (length first).
[[nodiscard]] std::string bcast_bytes(MPI_Comm comm, const std::string& bytes, int root);

}  // namespace rensa::distributed::detail
