#pragma once
// A small RAII layer over libzip: reading members with bounded sizes from a file or a
// buffer, and writing an archive atomically (temporary file next to the target,
// fsync, rename). Like npy.h it needs no Array, so the fuzz target builds it alone.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct zip;
struct zip_file;

namespace rensa::serializers::zipio {

// deflate cannot expand data by more than 1032:1 (RFC 1951: 258 bytes per 2-bit
// minimal code), so a member that claims more is a zip bomb.
inline constexpr int64_t kMaxDeflateRatio = 1032;

struct Entry {
    std::string name;
    uint64_t index = 0;
    int64_t size = 0;  // uncompressed, as the central directory claims
};

// One member opened for reading; reads never return more than the claimed size.
class MemberReader {
public:
    MemberReader(zip_file* file, std::string what, int64_t size);
    ~MemberReader();
    MemberReader(const MemberReader&) = delete;
    MemberReader& operator=(const MemberReader&) = delete;

    // Reads exactly `n` more bytes into `out`; throws IOError when the member ends early
    // or its data is corrupt.
    void read(char* out, int64_t n);
    // Checks the member has no bytes after those read (libzip checks the CRC at the end).
    void expect_end();
    int64_t remaining() const { return size_ - consumed_; }

private:
    zip_file* file_;
    std::string what_;
    int64_t size_;
    int64_t consumed_ = 0;
};

class ZipReader {
public:
    // Opens the archive at `path`; throws IOError naming it when it is missing or not a zip.
    static ZipReader open_file(const std::string& path);
    // Reads an archive held in memory (copied), named `name` in messages.
    static ZipReader open_memory(std::string_view bytes, std::string name = "<memory>");
    ~ZipReader();
    ZipReader(ZipReader&&) noexcept;
    ZipReader& operator=(ZipReader&&) = delete;

    const std::string& name() const { return name_; }
    // Every file member of the central directory (directories left out).
    const std::vector<Entry>& entries() const { return entries_; }
    // Opens a member after checking its sizes: stored or deflated only, compressed size
    // within the archive, uncompressed size within `max_bytes` and the deflate ratio.
    [[nodiscard]] std::unique_ptr<MemberReader> open(const Entry& entry, int64_t max_bytes) const;

private:
    ZipReader(::zip* archive, std::string name, int64_t archive_bytes, std::unique_ptr<std::string> buffer);
    void read_directory();

    ::zip* archive_;
    std::string name_;
    int64_t archive_bytes_;
    std::unique_ptr<std::string> buffer_;  // keeps an in-memory archive alive
    std::vector<Entry> entries_;
};

// Writes `members` (name, bytes) to `path` as a zip, deflated when `compression`, else
// stored. The archive is built in a temporary file in the same folder, synced, then
// renamed over `path`, so a failure leaves no partial file. Throws IOError.
void write_zip(const std::string& path, const std::vector<std::pair<std::string, std::string>>& members,
               bool compression);

}  // namespace rensa::serializers::zipio
