// Signatures compared across ranks: the always-on envelope and debug mode's full comparison.
//
// Note [Signature check]: MPI matches collectives by order alone. Ranks that disagree on a
// collective (rank 0 all-reduces float32 x4 while rank 1 all-reduces float64 x2: the same bytes;
// (3,) against (4,); bcast against allreduce; different roots) got garbage, a "Message truncated"
// on one rank and a wrong answer on the other, or a hang, and the job could exit 0. Debug mode
// (RENSA_DISTRIBUTED_DEBUG=1) compares full signatures with an MPI_Allgather before each
// collective: thorough, but a round trip of its own. The always-on check costs no extra message
// where it matters: the first message of every checked collective is a fixed-size Envelope,
// all-reduced with rensa's op, which keeps the maximum of each rank's digest (operation family,
// dtype, element count, root, reduction; signature_digest) and of its negation. Every rank so
// learns the maximum and the minimum digest from one message: they differ exactly when some rank
// called something else, and then every rank (all saw the same envelope) runs one MPI_Allgather of
// the full signatures and throws the same MpiError naming the first rank that differs from rank 0
// and both signatures. The envelope has a fixed size, so ranks that disagree never exchange
// messages of different lengths. A reduction of up to kInlineBytes travels inside the envelope
// (the op reduces the payload when the digests agree): a small allreduce (a loss, a counter) is
// still one MPI_Allreduce. Larger ones send the envelope first and then the data, one more small
// round trip (about 1 us on shared memory) in front of a message that costs far more; a
// non-blocking all-reduce does the same without waiting (Note [Checked iallreduce] in
// distributed/communicators/detail/iallreduce.cc). Digests have 62 bits: two different
// signatures that collide are left unnoticed with a chance of about 2^-62.
// Covered, through MpiCommunicatorBase (naive, flat, hierarchical and dummy on host arrays, pure_nccl
// on host arrays): allreduce, allreduce_inplace, iallreduce_inplace, bcast, gather, allgather,
// scatter, alltoall, split, barrier, the object-level collectives (so bcast_data and
// allreduce_obj), and the gradient buckets' layout when their reducer is made (bucket_setup,
// with the layout as salt). Not covered: the bucket reductions of each step (they exchange no MPI
// message on shared memory; their layout was checked at setup, and a rank that calls something
// else instead hangs there until the watchdog names it), send/recv (shape and dtype travel with
// the data; a wrong peer or tag is left to the watchdog), collectives of CUDA arrays through NCCL,
// and calls on MPI communicators taken out of rensa. Shapes with the same number of elements
// agree (debug mode compares shapes). RENSA_SIGNATURE_CHECK=0 switches the check off, only to
// measure what it costs (benchmarks/README.md, "Distributed").
// Shown by `mpiexec -n 2 build/tests/rensa_fault_prog mismatch_dtype` (or mismatch_count): every rank
// prints the same MpiError; tests/distributed/communicators/test_signature_check.cc covers each
// collective; `mpiexec -n 2 build/benchmarks/bench_allreduce --small` measures the cost.

#include "distributed/detail/signature_check.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/half.h"
#include "distributed/communicator.h"
#include "distributed/detail/reduce_value.h"
#include "distributed/detail/runtime_internal.h"

namespace rensa::distributed::detail {
namespace {

MPI_Datatype envelope_type = MPI_DATATYPE_NULL;
MPI_Op envelope_op = MPI_OP_NULL;

std::atomic<bool>& check_flag() {
    static std::atomic<bool> on{[] {
        const char* text = std::getenv("RENSA_SIGNATURE_CHECK");
        return text == nullptr || std::string_view(text) != "0";
    }()};
    return on;
}

// FNV-1a over bytes.
uint64_t mix(uint64_t hash, const void* data, size_t n) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
    return hash;
}

template <class T>
uint64_t mix_value(uint64_t hash, T value) {
    return mix(hash, &value, sizeof value);
}

std::string_view family(std::string_view op) {
    return (op == "allreduce_inplace" || op == "iallreduce") ? std::string_view("allreduce") : op;
}

// --- the payload's reduction (rensa's op, when every digest agrees) ----------------------------

template <class T>
void reduce_as(MpiReduce op, const unsigned char* in, unsigned char* inout, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
        T a, b;
        std::memcpy(&a, in + i * sizeof(T), sizeof(T));
        std::memcpy(&b, inout + i * sizeof(T), sizeof(T));
        const T r = reduce_value(op, a, b);  // exactly as the MPI path reduces
        std::memcpy(inout + i * sizeof(T), &r, sizeof(T));
    }
}

void reduce_payload(const Envelope& in, Envelope& inout) {
    const auto op = static_cast<MpiReduce>(in.reduce);
    const int64_t n = in.count;
    switch (static_cast<Dtype>(in.dtype)) {
        case Dtype::kBool:
            return reduce_as<bool>(op, in.payload, inout.payload, n);
        case Dtype::kInt8:
            return reduce_as<int8_t>(op, in.payload, inout.payload, n);
        case Dtype::kUInt8:
            return reduce_as<uint8_t>(op, in.payload, inout.payload, n);
        case Dtype::kInt32:
            return reduce_as<int32_t>(op, in.payload, inout.payload, n);
        case Dtype::kInt64:
            return reduce_as<int64_t>(op, in.payload, inout.payload, n);
        case Dtype::kFloat16:
            return reduce_as<Half>(op, in.payload, inout.payload, n);
        case Dtype::kBFloat16:
            return reduce_as<BFloat16>(op, in.payload, inout.payload, n);
        case Dtype::kFloat32:
            return reduce_as<float>(op, in.payload, inout.payload, n);
        case Dtype::kFloat64:
            return reduce_as<double>(op, in.payload, inout.payload, n);
    }
}

// rensa's MPI op on envelopes. `in` and `inout` may be partial results over several ranks: a
// partial result whose maximum and minimum differ already disagrees, and its payload is left alone.
void combine(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto* a = static_cast<const Envelope*>(in);
    auto* b = static_cast<Envelope*>(inout);
    for (int i = 0; i < *len; ++i) {
        const bool agree =
            a[i].digest == -a[i].neg_digest && a[i].digest == b[i].digest && a[i].neg_digest == b[i].neg_digest;
        if (agree && a[i].reduce >= 0) reduce_payload(a[i], b[i]);
        b[i].digest = std::max(a[i].digest, b[i].digest);
        b[i].neg_digest = std::max(a[i].neg_digest, b[i].neg_digest);
    }
}

// --- full signatures (debug mode, and the message after a failed check) ------------------------

// Everything but the digest, byte for byte (debug mode compares shapes too).
bool same_signature(const SignatureEntry& a, const SignatureEntry& b) {
    constexpr size_t kFrom = offsetof(SignatureEntry, op);
    return std::memcmp(reinterpret_cast<const char*>(&a) + kFrom, reinterpret_cast<const char*>(&b) + kFrom,
                       sizeof(SignatureEntry) - kFrom) == 0;
}

CallSignature decode(const SignatureEntry& e) {
    CallSignature s;
    s.op = std::string(e.op, strnlen(e.op, sizeof e.op));
    s.dtype = static_cast<Dtype>(e.dtype);
    for (int i = 0; i < std::min<int64_t>(e.ndim, SignatureEntry::kMaxDims); ++i) s.shape.push_back(e.shape[i]);
    s.root = e.root;
    s.reduce = static_cast<int>(e.reduce);
    return s;
}

// "allreduce #5 on communicator 0: rank 1 called allreduce(float64, (2,), sum) but rank 0 called
// allreduce(float32, (4,), sum)".
[[noreturn]] void throw_difference(const CommHandle& handle, int64_t seq, int rank, const SignatureEntry& theirs,
                                   const SignatureEntry& root, const char* note) {
    RENSA_THROW(distributed::MpiError, root.op, " #", seq, " on communicator ", handle.id(), ": rank ", rank,
                " called ", describe(decode(theirs)), " but rank 0 called ", describe(decode(root)), note);
}

std::vector<SignatureEntry> allgather_entries(const CommHandle& handle, const SignatureEntry& mine, const char* what) {
    std::vector<SignatureEntry> all(static_cast<size_t>(handle.size()));
    check_mpi(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, handle.comm()), what);
    return all;
}

}  // namespace

bool signature_check_enabled() { return check_flag().load(std::memory_order_relaxed); }
void set_signature_check(bool on) { check_flag().store(on, std::memory_order_relaxed); }

int64_t signature_digest(const CallSignature& signature, uint64_t salt) {
    const std::string_view op = family(signature.op);
    uint64_t hash = mix(0xcbf29ce484222325ull, op.data(), op.size());
    hash = mix_value(hash, static_cast<int64_t>(signature.dtype));
    uint64_t elements = 1;  // shapes with as many elements agree (wrapping, never throwing)
    for (const int64_t d : signature.shape) elements *= static_cast<uint64_t>(d);
    hash = mix_value(hash, elements);
    hash = mix_value(hash, signature.root);
    hash = mix_value(hash, signature.reduce);
    hash = mix_value(hash, salt);
    return static_cast<int64_t>(hash >> 2);  // its negation never overflows
}

Envelope make_envelope(const CallSignature& signature, uint64_t salt) {
    Envelope envelope;
    envelope.digest = signature_digest(signature, salt);
    envelope.neg_digest = -envelope.digest;
    return envelope;
}

bool put_inline(Envelope& envelope, const void* data, Dtype dtype, int64_t count, MpiReduce reduce) {
    const int64_t bytes = count * itemsize(dtype);
    if (bytes > kInlineBytes) return false;
    envelope.dtype = static_cast<int32_t>(dtype);
    envelope.reduce = static_cast<int32_t>(reduce);
    envelope.count = count;
    if (bytes > 0) std::memcpy(envelope.payload, data, static_cast<size_t>(bytes));
    return true;
}

void exchange_envelope(CommHandle& handle, int64_t seq, const CallSignature& signature, Envelope& envelope) {
    const int64_t mine = envelope.digest;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &envelope, 1, envelope_type, envelope_op, handle.comm()),
              "signature check: MPI_Allreduce");
    if (agreed(envelope)) return;
    throw_mismatch(handle, seq, signature,
                   allgather_entries(handle, make_entry(signature, mine), "signature check: MPI_Allgather"));
}

void start_envelope(CommHandle& handle, Envelope& envelope, MPI_Request* request) {
    check_mpi(MPI_Iallreduce(MPI_IN_PLACE, &envelope, 1, envelope_type, envelope_op, handle.comm(), request),
              "signature check: MPI_Iallreduce");
}

void check_signature(CommHandle& handle, int64_t seq, const CallSignature& signature, uint64_t salt) {
    if (!signature_check_enabled() || handle.size() == 1) return;
    Envelope envelope = make_envelope(signature, salt);
    exchange_envelope(handle, seq, signature, envelope);
}

void check_signatures_debug(const CommHandle& handle, int64_t seq, const CallSignature& signature) {
    const std::vector<SignatureEntry> all =
        allgather_entries(handle, make_entry(signature, 0), "debug signature check");
    for (size_t r = 1; r < all.size(); ++r) {
        if (!same_signature(all[0], all[r])) throw_difference(handle, seq, static_cast<int>(r), all[r], all[0], "");
    }
}

SignatureEntry make_entry(const CallSignature& signature, int64_t digest) {
    SignatureEntry e{};
    e.digest = digest;
    std::strncpy(e.op, signature.op.c_str(), sizeof e.op - 1);
    e.dtype = static_cast<int64_t>(signature.dtype);
    e.ndim = signature.shape.size();
    e.root = signature.root;
    e.reduce = signature.reduce;
    for (int i = 0; i < std::min<int>(signature.shape.size(), SignatureEntry::kMaxDims); ++i)
        e.shape[i] = signature.shape[i];
    return e;
}

void throw_mismatch(const CommHandle& handle, int64_t seq, const CallSignature& mine,
                    const std::vector<SignatureEntry>& all) {
    for (size_t r = 1; r < all.size(); ++r) {
        if (all[r].digest == all[0].digest) continue;
        const bool alike = same_signature(all[r], all[0]);
        throw_difference(handle, seq, static_cast<int>(r), all[r], all[0],
                         alike ? " (alike as shown: what differs is the gradient bucket layout)" : "");
    }
    RENSA_THROW(distributed::MpiError, mine.op, " #", seq, " on communicator ", handle.id(),
                ": the ranks called different collectives");
}

void init_envelope_type() {
    check_mpi(MPI_Type_contiguous(static_cast<int>(sizeof(Envelope)), MPI_BYTE, &envelope_type),
              "MPI_Type_contiguous(envelope)");
    check_mpi(MPI_Type_commit(&envelope_type), "MPI_Type_commit(envelope)");
    check_mpi(MPI_Op_create(&combine, /*commute=*/1, &envelope_op), "MPI_Op_create(envelope)");
}

void free_envelope_type() {
    if (envelope_type != MPI_DATATYPE_NULL) MPI_Type_free(&envelope_type);
    if (envelope_op != MPI_OP_NULL) MPI_Op_free(&envelope_op);
}

}  // namespace rensa::distributed::detail
