// The bucket reducers of the MPI communicators (and the local one).
//
// Note [Shared-memory buckets]: the ranks of one node keep their buckets in shared memory
// (ShmSegment), so backward writes each rank's grads where every rank of the node can read
// them. A bucket is reduced in slices, one per rank: when every rank has published the
// bucket (a "ready" flag, generation-numbered, in its segment), rank r sums slice r of all
// ranks' buffers, in rank order, times the scale, and writes the result into slice r of
// every rank's buffer, then raises its "done" flag; the bucket is reduced on a rank once all
// "done" flags are up. So each rank reads and writes its share of the bytes once: no
// message, no copy through MPI's cells, the division inside the sum, and every rank gets
// the same bits. Across nodes (hierarchical, or a multi-node flat run), rank r first sums
// slice r of its node into its own buffer only, the ranks of the same node rank on the
// other nodes all-reduce that slice with a ring (RingAllreduce), and rank r then copies it
// into the other buffers of its node. Without shared memory (a node of one rank, MPICH run
// with MPIR_CVAR_NOLOCAL, a failed segment) the whole bucket goes round a ring over every
// rank. Work is done by whoever asks: Request::test and wait, which the multi-node
// optimizer calls from its leaf-grad hook during backward, and a waiting rank spins briefly,
// then yields the core, then sleeps in short naps (several ranks may share a core).
// RENSA_BUCKET_TRANSPORT=ring forces the ring on one node too, and =mpi uses MPI's own
// MPI_Iallreduce followed by a scaling pass; both exist to measure the alternatives
// (benchmarks/README.md, "Distributed"), not as defaults.

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "core/error.h"
#include "distributed/communicators/detail/reduce_ops.h"
#include "distributed/detail/bucket_math.h"
#include "distributed/detail/bucket_reducer.h"
#include "distributed/detail/mpi_runtime.h"
#include "distributed/detail/ring_allreduce.h"
#include "distributed/detail/shm_segment.h"
#include "distributed/detail/signature_check.h"

namespace rensa::distributed::detail {
namespace {

constexpr int64_t kLine = 64;  // cache line: flags and buffers start on one
constexpr int kMaxTag = 32767;

int64_t round_up(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

// The generation-numbered flags of one bucket in a rank's segment (one cache line).
struct Flags {
    uint64_t ready;
    uint64_t done;
};
static_assert(sizeof(Flags) <= kLine);

uint64_t load(const uint64_t& flag) { return std::atomic_ref<const uint64_t>(flag).load(std::memory_order_acquire); }
void raise(uint64_t& flag, uint64_t generation) {
    std::atomic_ref<uint64_t>(flag).store(generation, std::memory_order_release);
}

class LocalBucketReducer final : public BucketReducer {
public:
    LocalBucketReducer(const std::vector<BucketSpec>& specs, Device device) {
        for (const BucketSpec& spec : specs) buffers_.push_back(Array::empty({spec.elements}, spec.dtype, device));
    }
    std::unique_ptr<Request> start(size_t) override { return std::make_unique<DoneRequest>(); }
};

class MpiBucketReducer;

// A started bucket; test() advances the reducer's work on it.
class BucketRequest : public Request {
public:
    BucketRequest(MpiBucketReducer& reducer, size_t index, std::vector<std::unique_ptr<OpGuard>> guards)
        : reducer_{reducer}, index_{index}, guards_{std::move(guards)} {}
    ~BucketRequest() override;
    void wait() override;
    bool test() override;

private:
    MpiBucketReducer& reducer_;
    size_t index_;
    std::vector<std::unique_ptr<OpGuard>> guards_;  // watched until finished
    bool done_ = false;
};

class MpiBucketReducer final : public BucketReducer {
public:
    MpiBucketReducer(const std::vector<BucketSpec>& specs, CommHandle& world, std::shared_ptr<ShmSegment> segment,
                     std::shared_ptr<CommHandle> node, std::shared_ptr<CommHandle> ring, BucketTransport transport);
    std::unique_ptr<Request> start(size_t index) override;
    // Does what can be done for bucket `index` now; true once it is reduced on this rank.
    bool advance(size_t index);

private:
    enum class Stage { kIdle, kWaitReady, kRing, kWaitDone, kMpi };
    struct State {
        uint64_t generation = 0;
        Stage stage = Stage::kIdle;
        std::unique_ptr<RingAllreduce> ring;
        MPI_Request mpi = MPI_REQUEST_NULL;
    };
    Flags& flags(int rank, size_t index) const {
        return reinterpret_cast<Flags*>(segment_->base(rank))[index * (kLine / sizeof(Flags))];
    }
    char* data(int rank, size_t index) const { return segment_->base(rank) + offsets_[index]; }
    // Slice [begin, end) of bucket `index` that node rank `r` reduces (64-byte aligned starts).
    std::pair<int64_t, int64_t> slice(size_t index, int r) const;
    bool advance_shared(size_t index, State& s);
    void reduce_slice(size_t index, State& s);
    void copy_slice_to_node(size_t index) const;
    void start_whole_ring(size_t index, State& s);

    std::vector<BucketSpec> specs_;
    std::vector<int64_t> offsets_;  // of each bucket in a segment
    std::vector<State> states_;
    std::shared_ptr<ShmSegment> segment_;  // null: no shared memory
    std::shared_ptr<CommHandle> node_;     // with segment_: the node's ranks
    std::shared_ptr<CommHandle> ring_;     // dup of `across`, or of world without segment_; may be null
    BucketTransport transport_;
    double scale_;
};

BucketRequest::~BucketRequest() {
    if (done_) return;
    try {
        wait();
    } catch (const std::exception& e) {
        abort_job(std::string("bucket all-reduce: ") + e.what());
    }
}

bool BucketRequest::test() {
    if (done_) return true;
    done_ = reducer_.advance(index_);
    if (done_) guards_.clear();
    return done_;
}

// Spins briefly, then yields the core, then naps: ranks may outnumber cores.
void BucketRequest::wait() {
    for (int64_t round = 0; !test(); ++round) {
        if (round < 200) {
            std::atomic_signal_fence(std::memory_order_seq_cst);
        } else if (round < 4000) {
            ::sched_yield();
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }
}

MpiBucketReducer::MpiBucketReducer(const std::vector<BucketSpec>& specs, CommHandle& world,
                                   std::shared_ptr<ShmSegment> segment, std::shared_ptr<CommHandle> node,
                                   std::shared_ptr<CommHandle> ring, BucketTransport transport)
    : specs_{specs},
      states_(specs.size()),
      segment_{std::move(segment)},
      node_{std::move(node)},
      ring_{std::move(ring)},
      transport_{transport},
      scale_{1.0 / world.size()} {
    int64_t offset = round_up(static_cast<int64_t>(specs.size()) * kLine, kLine);
    for (const BucketSpec& spec : specs) {
        offsets_.push_back(offset);
        offset = round_up(offset + spec.elements * itemsize(spec.dtype), kLine);
    }
    for (size_t i = 0; i < specs.size(); ++i) {
        const BucketSpec& spec = specs[i];
        if (!segment_) {
            buffers_.push_back(Array::empty({spec.elements}, spec.dtype, Device::native()));
            continue;
        }
        const int64_t bytes = std::max<int64_t>(1, spec.elements * itemsize(spec.dtype));
        auto storage =
            std::make_shared<Storage>(data(node_->rank(), i), bytes, Device::native(), [keep = segment_](void*) {});
        buffers_.emplace_back(std::move(storage), Shape{spec.elements}, Strides{itemsize(spec.dtype)}, 0, spec.dtype);
    }
}

std::pair<int64_t, int64_t> MpiBucketReducer::slice(size_t index, int r) const {
    const int64_t n = specs_[index].elements;
    const int64_t per = round_up((n + node_->size() - 1) / node_->size(), kLine);
    return {std::min(n, r * per), std::min(n, (r + 1) * per)};
}

std::unique_ptr<Request> MpiBucketReducer::start(size_t index) {
    State& s = states_.at(index);
    RENSA_ASSERT(s.stage == Stage::kIdle);
    ++s.generation;
    const BucketSpec& spec = specs_[index];
    const CallSignature signature{.op = "bucket_allreduce", .dtype = spec.dtype, .shape = {spec.elements}};
    std::vector<std::unique_ptr<OpGuard>> guards;
    if (segment_) guards.push_back(std::make_unique<OpGuard>(*node_, signature));
    if (ring_) guards.push_back(std::make_unique<OpGuard>(*ring_, signature));
    if (segment_) {
        raise(flags(node_->rank(), index).ready, s.generation);
        s.stage = Stage::kWaitReady;
    } else if (transport_ == BucketTransport::kMpi) {
        RENSA_CHECK(spec.elements <= INT32_MAX, ValueError, "RENSA_BUCKET_TRANSPORT=mpi: a bucket of ", spec.elements,
                    " elements is over MPI's int count");
        const Array& buffer = buffers_[index];
        check_mpi(MPI_Iallreduce(MPI_IN_PLACE, buffer.raw_data(), static_cast<int>(spec.elements),
                                 mpi_datatype(spec.dtype), mpi_op(MpiReduce::kSum, spec.dtype), ring_->comm(), &s.mpi),
                  "MPI_Iallreduce");
        s.stage = Stage::kMpi;
    } else {
        start_whole_ring(index, s);
    }
    return std::make_unique<BucketRequest>(*this, index, std::move(guards));
}

void MpiBucketReducer::start_whole_ring(size_t index, State& s) {
    const BucketSpec& spec = specs_[index];
    s.ring =
        std::make_unique<RingAllreduce>(ring_->comm(), ring_->rank(), ring_->size(), static_cast<int>(index % kMaxTag),
                                        spec.dtype, buffers_[index].raw_data(), spec.elements, scale_);
    s.stage = Stage::kRing;
}

bool MpiBucketReducer::advance(size_t index) {
    State& s = states_.at(index);
    if (segment_) return advance_shared(index, s);
    if (s.stage == Stage::kMpi) {
        int flag = 0;
        check_mpi(MPI_Test(&s.mpi, &flag, MPI_STATUS_IGNORE), "MPI_Test");
        if (flag == 0) return false;
        const Array& buffer = buffers_[index];  // MPI's sum, then the scale as a pass of its own
        void* p = buffer.raw_data();
        sum_into(buffer.dtype(), {&p, 1}, {&p, 1}, buffer.size(), scale_);
    } else if (s.stage == Stage::kRing && !s.ring->progress()) {
        return false;
    }
    s.ring.reset();
    s.stage = Stage::kIdle;
    return true;
}

// See Note [Shared-memory buckets].
bool MpiBucketReducer::advance_shared(size_t index, State& s) {
    const int me = node_->rank();
    if (s.stage == Stage::kWaitReady) {
        for (int q = 0; q < node_->size(); ++q) {
            if (load(flags(q, index).ready) < s.generation) return false;
        }
        reduce_slice(index, s);
    }
    if (s.stage == Stage::kRing) {
        if (!s.ring->progress()) return false;
        s.ring.reset();
        copy_slice_to_node(index);
        raise(flags(me, index).done, s.generation);
        s.stage = Stage::kWaitDone;
    }
    for (int q = 0; q < node_->size(); ++q) {
        if (load(flags(q, index).done) < s.generation) return false;
    }
    s.stage = Stage::kIdle;
    return true;
}

// Sums this rank's slice over the node (times the scale, the whole scale: the ring across
// nodes then only adds). Without a ring the sum goes to every buffer of the node at once.
void MpiBucketReducer::reduce_slice(size_t index, State& s) {
    const int me = node_->rank(), p = node_->size();
    const auto [begin, end] = slice(index, me);
    const int64_t item = itemsize(specs_[index].dtype);
    std::vector<const void*> srcs;
    std::vector<void*> all;
    for (int q = 0; q < p; ++q) {
        srcs.push_back(data(q, index) + begin * item);
        all.push_back(data(q, index) + begin * item);
    }
    void* own = data(me, index) + begin * item;
    if (ring_ && end > begin) {
        sum_into(specs_[index].dtype, srcs, {&own, 1}, end - begin, scale_);
        s.ring = std::make_unique<RingAllreduce>(ring_->comm(), ring_->rank(), ring_->size(),
                                                 static_cast<int>(index % kMaxTag), specs_[index].dtype, own,
                                                 end - begin, 1.0);
        s.stage = Stage::kRing;
        return;
    }
    if (end > begin) sum_into(specs_[index].dtype, srcs, all, end - begin, scale_);
    if (ring_) {  // an empty slice still takes part in the ring (every rank posts the same steps)
        s.ring = std::make_unique<RingAllreduce>(ring_->comm(), ring_->rank(), ring_->size(),
                                                 static_cast<int>(index % kMaxTag), specs_[index].dtype, own, 0, 1.0);
        s.stage = Stage::kRing;
        return;
    }
    raise(flags(me, index).done, s.generation);
    s.stage = Stage::kWaitDone;
}

void MpiBucketReducer::copy_slice_to_node(size_t index) const {
    const int me = node_->rank();
    const auto [begin, end] = slice(index, me);
    const int64_t item = itemsize(specs_[index].dtype);
    for (int q = 0; q < node_->size(); ++q) {
        if (q == me || end <= begin) continue;
        std::memcpy(data(q, index) + begin * item, data(me, index) + begin * item,
                    static_cast<size_t>((end - begin) * item));
    }
}

// Every rank must lay out the same buckets (Note [Signature check] in signature_check.cc): the
// layout rides in the check's digest; the message shows the count of buckets and elements.
void check_layout(const std::vector<BucketSpec>& specs, CommHandle& world) {
    uint64_t layout = 0x9e3779b97f4a7c15ull;
    int64_t total = 0;
    for (const BucketSpec& spec : specs) {
        layout = (layout ^ static_cast<uint64_t>(spec.dtype)) * 0x100000001b3ull;
        layout = (layout ^ static_cast<uint64_t>(spec.elements)) * 0x100000001b3ull;
        total += spec.elements;
    }
    const CallSignature signature{.op = "bucket_setup",
                                  .dtype = specs.empty() ? Dtype::kFloat32 : specs.front().dtype,
                                  .shape = {static_cast<int64_t>(specs.size()), total}};
    const OpGuard guard{world, signature};
    check_signature(world, guard.sequence(), signature, layout);
}

}  // namespace

std::unique_ptr<BucketReducer> make_local_bucket_reducer(const std::vector<BucketSpec>& specs, Device device) {
    return std::make_unique<LocalBucketReducer>(specs, device);
}

BucketTransport bucket_transport_from_env() {
    const char* value = std::getenv("RENSA_BUCKET_TRANSPORT");
    const std::string name = value == nullptr ? "" : value;
    if (name.empty() || name == "auto") return BucketTransport::kAuto;
    if (name == "ring") return BucketTransport::kRing;
    if (name == "mpi") return BucketTransport::kMpi;
    RENSA_THROW(ValueError, "RENSA_BUCKET_TRANSPORT: expected auto, ring or mpi, got '", name, "'");
}

std::unique_ptr<BucketReducer> make_mpi_bucket_reducer(const std::vector<BucketSpec>& specs, CommHandle& world,
                                                       const std::shared_ptr<CommHandle>& node,
                                                       const std::shared_ptr<CommHandle>& across,
                                                       BucketTransport transport) {
    check_layout(specs, world);
    std::shared_ptr<ShmSegment> segment;
    if (transport == BucketTransport::kAuto && node && node->size() > 1) {
        int64_t bytes = round_up(static_cast<int64_t>(specs.size()) * kLine, kLine);
        for (const BucketSpec& spec : specs) bytes = round_up(bytes + spec.elements * itemsize(spec.dtype), kLine);
        segment = ShmSegment::create(*node, bytes);
    }
    // Every rank of the world takes the same road (one node without shared memory sends
    // everything through the world ring, and so must every other node).
    int64_t shared = segment ? 1 : 0;
    {
        const OpGuard guard{world, {.op = "bucket_setup", .dtype = Dtype::kInt64, .shape = {1}}};
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT64_T, MPI_MIN, world.comm()), "MPI_Allreduce");
    }
    if (shared == 0) segment.reset();
    std::shared_ptr<CommHandle> ring;
    if (segment && across && across->size() > 1) ring = across->split(0, across->rank());
    if (!segment) ring = world.split(0, world.rank());
    return std::make_unique<MpiBucketReducer>(specs, world, std::move(segment), node, std::move(ring), transport);
}

}  // namespace rensa::distributed::detail
