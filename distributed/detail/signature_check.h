#pragma once
// The always-on check that every rank calls the same collective (internal), and the debug mode's
// full comparison. See Note [Signature check] in signature_check.cc.

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {

// A reduction of at most this many bytes travels inside the envelope: one message in all.
inline constexpr int64_t kInlineBytes = 32;

// The first message of a checked collective: one MPI_Allreduce of this struct over the handle
// with rensa's op, which keeps the maximum of digest and of -digest and, where every rank's digest
// is the same, reduces the inline payload.
struct Envelope {
    int64_t digest = 0;      // this rank's; after the exchange the maximum over the ranks
    int64_t neg_digest = 0;  // -digest; after the exchange -(the minimum)
    int32_t dtype = 0;       // an inline reduction's Dtype
    int32_t reduce = -1;     // its MpiReduce; -1: nothing inline
    int64_t count = 0;       // its elements
    alignas(8) unsigned char payload[kInlineBytes] = {};
};
static_assert(sizeof(Envelope) == 32 + kInlineBytes);

// On unless RENSA_SIGNATURE_CHECK=0 at start; set_signature_check switches it for measurements
// (benchmarks/distributed/bench_allreduce.cc). It must be the same on every rank at each call.
bool signature_check_enabled();
void set_signature_check(bool on);

// What must agree between the ranks: the operation (allreduce, allreduce_inplace and iallreduce are
// one operation), the dtype, the number of elements, the root and the reduction of `signature`,
// and `salt` (what the signature leaves out, e.g. a bucket layout). In [0, 2^62).
[[nodiscard]] int64_t signature_digest(const CallSignature& signature, uint64_t salt = 0);

// The envelope of `signature` (nothing inline).
[[nodiscard]] Envelope make_envelope(const CallSignature& signature, uint64_t salt = 0);
// Puts `count` elements of `data` (a contiguous host buffer) inline when they fit in kInlineBytes;
// false (the envelope unchanged) when they do not.
bool put_inline(Envelope& envelope, const void* data, Dtype dtype, int64_t count, MpiReduce reduce);

// The exchange, as the first message of operation `seq` on `handle` (every member calls it, in
// the guard of that operation). When the digests differ every rank throws MpiError naming the
// first rank whose signature differs from rank 0's and both signatures (one more MPI_Allgather on
// that path only). Afterwards an inline payload holds the reduction over the ranks.
void exchange_envelope(CommHandle& handle, int64_t seq, const CallSignature& signature, Envelope& envelope);
// The exchange without waiting (iallreduce_inplace): MPI_Iallreduce of `envelope` on `handle`.
void start_envelope(CommHandle& handle, Envelope& envelope, MPI_Request* request);
// After the exchange: whether every rank's digest was the same.
inline bool agreed(const Envelope& envelope) { return envelope.digest == -envelope.neg_digest; }
// The check alone: make_envelope + exchange_envelope. Nothing when the check is off or the handle
// has one member.
void check_signature(CommHandle& handle, int64_t seq, const CallSignature& signature, uint64_t salt = 0);

// A signature in fixed size (what the ranks exchange to name the difference) and its digest.
struct SignatureEntry {
    static constexpr int kMaxDims = 16;
    int64_t digest;
    char op[32];
    int64_t dtype, ndim, root, reduce, shape[kMaxDims];
};
[[nodiscard]] SignatureEntry make_entry(const CallSignature& signature, int64_t digest);
// MpiError naming the first rank whose digest differs from rank 0's, and both signatures (every rank
// that has `all`, every rank's entry in rank order, throws the same).
[[noreturn]] void throw_mismatch(const CommHandle& handle, int64_t seq, const CallSignature& mine,
                                 const std::vector<SignatureEntry>& all);

// Debug mode: one MPI_Allgather of every rank's full signature (shapes too); on any difference every
// rank throws MpiError naming the first differing rank and both signatures.
void check_signatures_debug(const CommHandle& handle, int64_t seq, const CallSignature& signature);

// The envelope's MPI datatype and op (created by init_mpi_types, freed by free_mpi_types).
void init_envelope_type();
void free_envelope_type();

}  // namespace rensa::distributed::detail
