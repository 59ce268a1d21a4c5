#pragma once
// Shared memory among the ranks of one node (internal): each rank's gradient buckets live in
// a POSIX shared memory segment that every rank of its node maps, so a bucket is reduced by
// reading the other ranks' grads where backward wrote them, with no message and no copy
// through MPI. See Note [Shared-memory buckets] in distributed/detail/mpi_bucket_reducer.cc.
//
// Lifetime: every rank creates its own segment (shm_open, sized with posix_fallocate so a
// full /dev/shm fails here rather than with SIGBUS later), the names go round the group,
// every rank maps all of them, and once all have, each unlinks its own name. So nothing is
// left in /dev/shm even when a rank is killed later, and a segment stays mapped until the
// last Array viewing it is gone: destruction is local (munmap), never collective.

#include <cstdint>
#include <memory>
#include <vector>

#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {

class ShmSegment {
public:
    // Collective over `group` (a guarded "shm_create"); every rank asks for `bytes`. Returns
    // null on every rank when any rank could not create or map a segment (no shared memory,
    // /dev/shm full): the caller then falls back to messages.
    [[nodiscard]] static std::shared_ptr<ShmSegment> create(CommHandle& group, int64_t bytes);
    ~ShmSegment();
    ShmSegment(const ShmSegment&) = delete;
    ShmSegment& operator=(const ShmSegment&) = delete;

    // Rank `rank`'s segment (of the group), as mapped in this process; 64-byte aligned.
    char* base(int rank) const { return maps_[static_cast<size_t>(rank)]; }
    int64_t bytes() const { return bytes_; }
    int size() const { return static_cast<int>(maps_.size()); }

private:
    ShmSegment(int64_t bytes, int size) : bytes_{bytes}, maps_(static_cast<size_t>(size), nullptr) {}
    int64_t bytes_;
    std::vector<char*> maps_;
};

}  // namespace rensa::distributed::detail
