#include "distributed/detail/link_data.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <variant>
#include <vector>

namespace rensa::distributed::detail {
namespace {

// A 64-bit digest of `bytes` (word-wise multiply-xorshift; not cryptographic: it only has to
// tell a rank's freshly initialised weights from rank 0's).
uint64_t mix(uint64_t h, const char* bytes, size_t n) {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        std::memcpy(&w, bytes + i, 8);
        h = (h ^ w) * kMul;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    std::memcpy(&tail, bytes + i, n - i);
    h = (h ^ tail ^ (static_cast<uint64_t>(n) << 56)) * kMul;
    return h ^ (h >> 32);
}

uint64_t digest(const std::vector<NamedArray>& entries) {
    uint64_t h = 0x243F6A8885A308D3ULL;
    for (const NamedArray& e : entries) {
        std::ostringstream os;
        os << e.name << ' ' << e.array.shape() << ' ' << e.array.dtype();
        const std::string meta = os.str();
        h = mix(h, meta.data(), meta.size());
        const Array host = e.array.to_device(Device::native()).as_contiguous();
        h = mix(h, static_cast<const char*>(host.raw_data()), static_cast<size_t>(host.nbytes()));
    }
    return h;
}

}  // namespace

std::vector<NamedArray> sorted_data(links::Link& link) {
    std::vector<NamedArray> entries;
    for (const auto& [name, param] : link.namedparams(false)) entries.push_back({name, param.array()});
    for (const auto& [path, sub] : link.namedlinks()) {
        for (const auto& [name, ref] : sub->own_persistents()) {
            Array* const* array = std::get_if<Array*>(&ref);
            if (array == nullptr || !(*array)->defined()) continue;
            entries.push_back({(path == "/" ? "/" : path + "/") + name, **array});
        }
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return entries;
}

bool same_data_on_every_rank(Communicator& comm, links::Link& link) {
    const uint64_t mine = digest(sorted_data(link));
    const std::string bytes(reinterpret_cast<const char*>(&mine), sizeof mine);
    const std::vector<std::string> all = comm.allgather_obj(bytes);
    return std::all_of(all.begin(), all.end(), [&](const std::string& other) { return other == bytes; });
}

}  // namespace rensa::distributed::detail
