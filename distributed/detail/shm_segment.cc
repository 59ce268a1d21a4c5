#include "distributed/detail/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <string>

namespace rensa::distributed::detail {
namespace {

struct NameRecord {
    char name[56];
    int64_t ok;  // 1 when the segment was created and mapped
};

std::string unique_name() {
    static std::atomic<int64_t> counter{0};
    std::random_device device;
    return "/rensa-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
           std::to_string(device() & 0xffffffu);
}

char* map_fd(int fd, int64_t bytes) {
    void* p = ::mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

// Creates, sizes (reserving the pages) and maps a new segment; null on any failure.
char* create_own(const std::string& name, int64_t bytes) {
    const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return nullptr;
    char* base = nullptr;
    if (::ftruncate(fd, bytes) == 0 && ::posix_fallocate(fd, 0, bytes) == 0) base = map_fd(fd, bytes);
    ::close(fd);
    if (base == nullptr) ::shm_unlink(name.c_str());
    return base;
}

// Maps a peer's segment; null when it cannot (or it is smaller than `bytes`).
char* map_peer(const char* name, int64_t bytes) {
    const int fd = ::shm_open(name, O_RDWR, 0);
    if (fd < 0) return nullptr;
    struct stat st {};
    char* base = ::fstat(fd, &st) == 0 && st.st_size >= bytes ? map_fd(fd, bytes) : nullptr;
    ::close(fd);
    return base;
}

// MPI_MIN of `flag` over the group.
int64_t all_min(CommHandle& group, int64_t flag) {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT64_T, MPI_MIN, group.comm()), "MPI_Allreduce");
    return flag;
}

}  // namespace

std::shared_ptr<ShmSegment> ShmSegment::create(CommHandle& group, int64_t bytes) {
    const OpGuard guard{group, {.op = "shm_create", .dtype = Dtype::kUInt8, .shape = {bytes}}};
    const int64_t page = ::sysconf(_SC_PAGESIZE);
    bytes = std::max<int64_t>(page, (bytes + page - 1) / page * page);
    std::shared_ptr<ShmSegment> segment(new ShmSegment(bytes, group.size()));
    const std::string name = unique_name();
    NameRecord mine{};
    std::strncpy(mine.name, name.c_str(), sizeof(mine.name) - 1);
    char* own = create_own(name, bytes);
    segment->maps_[static_cast<size_t>(group.rank())] = own;
    mine.ok = own != nullptr ? 1 : 0;
    std::vector<NameRecord> all(static_cast<size_t>(group.size()));
    check_mpi(
        MPI_Allgather(&mine, sizeof(NameRecord), MPI_BYTE, all.data(), sizeof(NameRecord), MPI_BYTE, group.comm()),
        "MPI_Allgather");
    const bool created = std::all_of(all.begin(), all.end(), [](const NameRecord& r) { return r.ok == 1; });
    bool mapped = created;
    for (int r = 0; created && r < group.size(); ++r) {
        if (r == group.rank()) continue;
        char* peer = map_peer(all[static_cast<size_t>(r)].name, bytes);
        segment->maps_[static_cast<size_t>(r)] = peer;
        mapped = mapped && peer != nullptr;
    }
    // Every rank has mapped (or failed) before any name disappears.
    const bool everyone = all_min(group, mapped ? 1 : 0) == 1;
    if (own != nullptr) ::shm_unlink(name.c_str());
    return everyone ? segment : nullptr;  // a failed one unmaps what it mapped as it goes
}

ShmSegment::~ShmSegment() {
    for (char* base : maps_) {
        if (base != nullptr) ::munmap(base, static_cast<size_t>(bytes_));
    }
}

}  // namespace rensa::distributed::detail
