#pragma once
// A non-blocking ring all-reduce over MPI point-to-point messages (internal): the gradient
// buckets' algorithm between ranks that share no memory. The range is cut into one chunk
// per rank; a reduce-scatter of size-1 steps leaves each rank with one chunk summed over
// all ranks (the scale applied inside the reduce steps, see ring_accumulate in
// bucket_math.h), and an all-gather of size-1 steps gives every rank every chunk. Each
// step's chunk travels in pieces, and a piece is reduced as soon as it arrived, so the
// arithmetic overlaps the transfer. Every rank moves 2(n-1)/n of the range in each
// direction, as MPI's own large all-reduce does.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "core/dtype.h"

namespace rensa::distributed::detail {

class RingAllreduce {
public:
    // Reduces data[0, count) of `dtype` in place over `comm` (this rank is `rank` of `size`),
    // messages tagged `tag`. Nothing moves until progress(). `data` must stay alive and
    // untouched until done.
    RingAllreduce(MPI_Comm comm, int rank, int size, int tag, Dtype dtype, void* data, int64_t count, double scale);
    ~RingAllreduce();
    RingAllreduce(const RingAllreduce&) = delete;
    RingAllreduce& operator=(const RingAllreduce&) = delete;

    // Posts and tests messages and reduces what arrived, without blocking; true once done.
    bool progress();
    bool done() const { return step_ >= 2 * (size_ - 1); }

private:
    struct Piece {
        int64_t offset = 0;  // bytes from the chunk's start
        int64_t bytes = 0;
        bool reduced = false;
    };
    int64_t chunk_offset(int chunk) const;  // in elements
    int64_t chunk_count(int chunk) const;
    void post_step();
    bool drive_step();

    MPI_Comm comm_;
    int rank_, size_, tag_;
    Dtype dtype_;
    char* data_;
    int64_t count_, itemsize_;
    double scale_;
    int step_ = 0;  // 0 .. size-2: reduce-scatter; size-1 .. 2 size-3: all-gather
    bool posted_ = false;
    std::vector<char> scratch_;  // the received pieces of a reduce-scatter step
    std::vector<Piece> pieces_;
    std::vector<MPI_Request> recvs_, sends_;
};

}  // namespace rensa::distributed::detail
