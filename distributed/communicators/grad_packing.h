#pragma once
// Packing of many arrays (gradients, parameters) into one contiguous native buffer per
// dtype, so that one collective moves them all (flat communicator, gradient buckets of the
// multi-node optimizer, bcast_data of the flat communicator).

#include <cstdint>
#include <optional>
#include <vector>

#include "core/array.h"

namespace rensa::distributed {

// Lays arrays out in buffers, one 1-D contiguous native buffer per dtype, and copies them
// in and out. The buffers are kept and reused by the next pack() of the same layout (same
// dtypes and sizes in the same order), so a training loop allocates them once.
class GradPacker {
public:
    // Copies `arrays` (any layout and device; all defined) into the buffers, grouped by dtype
    // in order of first appearance, each group in the given order. With `as_dtype` every
    // array is cast to it (one buffer). Returns the buffers (aliases of the kept ones).
    const std::vector<Array>& pack(const std::vector<Array>& arrays, std::optional<Dtype> as_dtype = std::nullopt);
    // The buffers of the last pack() (aliases: write them in place, e.g. allreduce_inplace).
    const std::vector<Array>& buffers() const { return buffers_; }
    // Writes each buffer slice back into the array at the same position of `arrays` (the
    // list given to the last pack()), multiplied by `scale` and cast to the array's dtype.
    // Throws ValueError when `arrays` does not match the last pack's layout.
    void unpack(const std::vector<Array>& arrays, double scale = 1.0) const;

private:
    struct Slot {
        size_t buffer = 0;   // index in buffers_
        int64_t offset = 0;  // elements from the buffer's start
        int64_t size = 0;
    };
    // Recomputes slots_ for `arrays`; reallocates the buffers when the layout changed.
    void layout(const std::vector<Array>& arrays, std::optional<Dtype> as_dtype);

    std::vector<Slot> slots_;
    std::vector<Dtype> dtypes_;          // dtype of each buffer
    std::vector<int64_t> buffer_sizes_;  // elements of each buffer
    std::vector<Array> buffers_;
};

}  // namespace rensa::distributed
