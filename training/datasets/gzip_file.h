#pragma once
// Internal to the datasets: a file read through zlib, plain or gzip (gzread inflates a .gz
// transparently), in caller-sized pieces, so a reader can check a header before it
// allocates and stop as soon as the data passes the size the header implies.

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace rensa::training::datasets::detail {

// deflate expands data at most 1032:1 (RFC 1951: 258 bytes per 2-bit code), so a gzip file
// of n bytes inflates to less than 1032 n.
inline constexpr int64_t kMaxDeflateRatio = 1032;

class GzipFile {
public:
    // Opens `path`; IOError naming it when it cannot be opened.
    explicit GzipFile(const std::filesystem::path& path);

    const std::string& name() const { return name_; }
    // True for a gzip file, false for a plain one.
    bool compressed() const { return compressed_; }
    // The file's size on disk.
    int64_t file_bytes() const { return file_bytes_; }
    // The most bytes reading can yield: the size of a plain file, 1032 times that for gzip.
    int64_t max_bytes() const { return compressed_ ? file_bytes_ * kMaxDeflateRatio : file_bytes_; }
    // Reads up to `n` bytes into `out`; returns how many were read (fewer only at the end).
    // IOError naming the file for corrupt or truncated gzip data.
    int64_t read(void* out, int64_t n);

private:
    std::string name_;
    std::unique_ptr<gzFile_s, int (*)(gzFile)> file_;
    bool compressed_ = false;
    int64_t file_bytes_ = 0;
};

}  // namespace rensa::training::datasets::detail
