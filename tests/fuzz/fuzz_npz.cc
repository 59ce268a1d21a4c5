// libFuzzer target for the NPZ reader: every input is tried as an `.npz` archive (read
// from memory, every member read and decoded) and as a bare `.npy` member. Only rensa's
// typed errors may come out; crashes, leaks, UB and over-allocation are bugs.
// Built by -DRENSA_FUZZ=ON with clang; `make test-fuzz` runs it (tests/fuzz/CMakeLists.txt).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "serializers/npy.h"
#include "serializers/npz_reader.h"

namespace npy = rensa::serializers::npy;

namespace {

constexpr int64_t kMaxMemberBytes = 1 << 24;  // keeps each input's allocations small

void fuzz_npy(std::string_view bytes) {
    try {
        const npy::Header header = npy::parse_header(bytes, "fuzz.npy");
        const std::string_view data = bytes.substr(static_cast<size_t>(header.header_bytes));
        if (header.descr.kind == 'O') {
            (void)npy::is_none_pickle(data);
        } else if (header.data_bytes() == static_cast<int64_t>(data.size())) {
            (void)npy::decode(header, data, "fuzz.npy");
        }
    } catch (const rensa::Error&) {
    }
}

void fuzz_npz(std::string_view bytes) {
    try {
        const auto reader = rensa::serializers::NpzReader::open_memory(bytes, "fuzz.npz", kMaxMemberBytes);
        for (const std::string& key : reader.keys()) {
            try {
                (void)reader.read(key);
            } catch (const rensa::Error&) {
            }
        }
    } catch (const rensa::Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes{reinterpret_cast<const char*>(data), size};
    fuzz_npy(bytes);
    fuzz_npz(bytes);
    return 0;
}
