#include "training/datasets/gzip_file.h"

#include <algorithm>
#include <climits>

#include "core/error.h"

namespace rensa::training::datasets::detail {

GzipFile::GzipFile(const std::filesystem::path& path)
    : name_{path.string()}, file_{gzopen(path.c_str(), "rb"), gzclose} {
    RENSA_CHECK(file_ != nullptr, IOError, "cannot open '", name_, "' for reading");
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    RENSA_CHECK(!ec, IOError, "cannot read the size of '", name_, "': ", ec.message());
    file_bytes_ = static_cast<int64_t>(bytes);
    compressed_ = gzdirect(file_.get()) == 0;  // reads the first bytes to tell
}

int64_t GzipFile::read(void* out, int64_t n) {
    auto* dst = static_cast<char*>(out);
    int64_t done = 0;
    while (done < n) {
        const auto piece = static_cast<unsigned>(std::min<int64_t>(n - done, INT_MAX / 2 + 1));
        const int got = gzread(file_.get(), dst + done, piece);
        int errnum = Z_OK;
        const char* message = gzerror(file_.get(), &errnum);
        RENSA_CHECK(got >= 0 && (errnum == Z_OK || errnum == Z_STREAM_END), IOError, "cannot read '", name_,
                    "': ", message, " (a truncated or corrupt file?)");
        if (got == 0) break;
        done += got;
    }
    return done;
}

}  // namespace rensa::training::datasets::detail
