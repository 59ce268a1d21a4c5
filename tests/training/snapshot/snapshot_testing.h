#pragma once
// Helpers of the snapshot tests, beyond the shared ones of training_testing.h: a
// serializable object whose save can be made to fail halfway.

#include <memory>
#include <string>
#include <vector>

#include "core/array.h"
#include "core/error.h"
#include "serializers/serializer.h"
#include "tests/training/training_testing.h"

namespace rensa::testing {

// A few arrays and a counter; saving throws after `fail_after` arrays when >= 0.
struct Payload {
    std::vector<Array> arrays;
    int64_t count = 0;
    int fail_after = -1;
    void serialize(const serializers::Serializer& s) {
        for (size_t i = 0; i < arrays.size(); ++i) {
            if (!s.is_loading() && fail_after >= 0 && static_cast<int>(i) == fail_after)
                RENSA_THROW(ValueError, "Payload: failing on purpose at array ", i);
            std::string key = "a";  // not "a" + to_string(i): GCC 12 warns falsely (-Wrestrict)
            key += std::to_string(i);
            s(key, arrays[i]);
        }
        s("count", count);
    }
};

// A Payload of `n` float32 arrays of `size` elements, filled from `seed`.
inline std::shared_ptr<Payload> make_payload(int n, int64_t size, float seed) {
    auto p = std::make_shared<Payload>();
    for (int i = 0; i < n; ++i) {
        std::vector<float> v(static_cast<size_t>(size));
        for (int64_t k = 0; k < size; ++k) v[static_cast<size_t>(k)] = seed + static_cast<float>(i * 1000 + k);
        p->arrays.push_back(Array::from_vector<float>(v, {size}));
    }
    p->count = static_cast<int64_t>(seed);
    return p;
}

}  // namespace rensa::testing
