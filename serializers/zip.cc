#include "serializers/zip.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace rensa::serializers::zipio {
namespace {

std::string error_text(int code) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return text;
}

// The 22-byte end-of-central-directory record of an archive with no members (libzip
// deletes an empty archive on close instead of writing one).
void write_empty_zip(const std::string& path) {
    const char eocd[22] = {'P', 'K', 5, 6};
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out.write(eocd, sizeof eocd);
    RENSA_CHECK(out.good(), IOError, "save_npz: cannot write '", path, "'");
}

void add_members(::zip* archive, const std::vector<std::pair<std::string, std::string>>& members, bool compression,
                 const std::string& path) {
    for (const auto& [name, bytes] : members) {
        zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
        const zip_int64_t index = source ? zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8) : -1;
        if (index < 0) {
            if (source) zip_source_free(source);
            RENSA_THROW(IOError, "save_npz: '", path, "': cannot add member '", name, "': ", zip_strerror(archive));
        }
        const zip_int32_t method = compression ? ZIP_CM_DEFLATE : ZIP_CM_STORE;
        RENSA_CHECK(zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), method, 0) == 0, IOError,
                    "save_npz: '", path, "': cannot set the compression of '", name, "': ", zip_strerror(archive));
    }
}

// libzip writes the archive to a file of its own next to `tmp` and renames it to `tmp`.
void write_archive(const std::string& tmp, const std::vector<std::pair<std::string, std::string>>& members,
                   bool compression, const std::string& path) {
    if (members.empty()) return write_empty_zip(tmp);
    int code = 0;
    ::zip* archive = zip_open(tmp.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    RENSA_CHECK(archive != nullptr, IOError, "save_npz: cannot create '", tmp, "': ", error_text(code));
    try {
        add_members(archive, members, compression, path);
    } catch (...) {
        zip_discard(archive);
        throw;
    }
    if (zip_close(archive) != 0) {
        const std::string why = zip_strerror(archive);
        zip_discard(archive);
        RENSA_THROW(IOError, "save_npz: cannot write '", path, "': ", why);
    }
}

void sync_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    RENSA_CHECK(fd >= 0, IOError, "save_npz: cannot reopen '", path, "' to sync it");
    const int rc = ::fsync(fd);
    ::close(fd);
    RENSA_CHECK(rc == 0, IOError, "save_npz: cannot sync '", path, "'");
}

}  // namespace

MemberReader::MemberReader(zip_file* file, std::string what, int64_t size)
    : file_{file}, what_{std::move(what)}, size_{size} {}

MemberReader::~MemberReader() { zip_fclose(file_); }

void MemberReader::read(char* out, int64_t n) {
    RENSA_CHECK(n <= remaining(), IOError, what_, ": reading past the member's size");
    while (n > 0) {
        const zip_int64_t got = zip_fread(file_, out, static_cast<zip_uint64_t>(n));
        RENSA_CHECK(got >= 0, IOError, what_, ": corrupt data: ", zip_file_strerror(file_));
        RENSA_CHECK(got > 0, IOError, what_, ": truncated: the member ends ", n, " bytes early");
        out += got;
        n -= got;
        consumed_ += got;
    }
}

void MemberReader::expect_end() {
    char extra = 0;
    const zip_int64_t got = zip_fread(file_, &extra, 1);
    RENSA_CHECK(got >= 0, IOError, what_, ": corrupt data: ", zip_file_strerror(file_));
    RENSA_CHECK(got == 0, IOError, what_, ": the member holds more bytes than its declared size");
}

ZipReader::ZipReader(::zip* archive, std::string name, int64_t archive_bytes, std::unique_ptr<std::string> buffer)
    : archive_{archive}, name_{std::move(name)}, archive_bytes_{archive_bytes}, buffer_{std::move(buffer)} {}

ZipReader::ZipReader(ZipReader&& other) noexcept
    : archive_{std::exchange(other.archive_, nullptr)},
      name_{std::move(other.name_)},
      archive_bytes_{other.archive_bytes_},
      buffer_{std::move(other.buffer_)},
      entries_{std::move(other.entries_)} {}

ZipReader::~ZipReader() {
    if (archive_) zip_discard(archive_);
}

ZipReader ZipReader::open_file(const std::string& path) {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    RENSA_CHECK(!ec, IOError, "'", path, "': cannot open: ", ec.message());
    int code = 0;
    ::zip* archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    RENSA_CHECK(archive != nullptr, IOError, "'", path, "': not a readable zip archive: ", error_text(code));
    ZipReader reader{archive, path, static_cast<int64_t>(bytes), nullptr};
    reader.read_directory();
    return reader;
}

ZipReader ZipReader::open_memory(std::string_view bytes, std::string name) {
    auto buffer = std::make_unique<std::string>(bytes);
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source = zip_source_buffer_create(buffer->data(), buffer->size(), 0, &error);
    ::zip* archive = source ? zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error) : nullptr;
    if (archive == nullptr) {
        const std::string why = zip_error_strerror(&error);
        zip_error_fini(&error);
        if (source) zip_source_free(source);
        RENSA_THROW(IOError, "'", name, "': not a readable zip archive: ", why);
    }
    zip_error_fini(&error);
    ZipReader reader{archive, std::move(name), static_cast<int64_t>(bytes.size()), std::move(buffer)};
    reader.read_directory();
    return reader;
}

void ZipReader::read_directory() {
    const zip_int64_t n = zip_get_num_entries(archive_, 0);
    RENSA_CHECK(n >= 0, IOError, "'", name_, "': cannot read the central directory");
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        const bool ok = zip_stat_index(archive_, static_cast<zip_uint64_t>(i), 0, &st) == 0 &&
                        (st.valid & ZIP_STAT_NAME) && (st.valid & ZIP_STAT_SIZE) && st.name != nullptr;
        RENSA_CHECK(ok, IOError, "'", name_, "': unreadable central directory entry ", i, ": ", zip_strerror(archive_));
        const std::string name = st.name;
        if (name.empty() || name.back() == '/') continue;  // a folder
        RENSA_CHECK(st.size <= static_cast<zip_uint64_t>(INT64_MAX), IOError, "'", name_, "': member '", name,
                    "' claims an impossible size");
        entries_.push_back({name, static_cast<uint64_t>(i), static_cast<int64_t>(st.size)});
    }
}

std::unique_ptr<MemberReader> ZipReader::open(const Entry& entry, int64_t max_bytes) const {
    const std::string what = "'" + name_ + "': member '" + entry.name + "'";
    zip_stat_t st;
    zip_stat_init(&st);
    RENSA_CHECK(zip_stat_index(archive_, entry.index, 0, &st) == 0 && (st.valid & ZIP_STAT_COMP_SIZE) &&
                    (st.valid & ZIP_STAT_COMP_METHOD),
                IOError, what, ": cannot stat: ", zip_strerror(archive_));
    const int64_t size = entry.size;
    RENSA_CHECK(st.comp_method == ZIP_CM_STORE || st.comp_method == ZIP_CM_DEFLATE, IOError, what,
                ": unsupported compression method ", st.comp_method, " (only stored and deflate)");
    RENSA_CHECK(st.comp_size <= static_cast<zip_uint64_t>(archive_bytes_), IOError, what, ": compressed size ",
                st.comp_size, " is larger than the archive");
    const auto comp = static_cast<int64_t>(st.comp_size);
    RENSA_CHECK(st.comp_method == ZIP_CM_DEFLATE || comp == size, IOError, what, ": stored member of ", comp,
                " bytes claims ", size, " uncompressed bytes");
    RENSA_CHECK(size / kMaxDeflateRatio <= comp, IOError, what, ": claims ", size, " bytes from ", comp,
                " compressed bytes, more than deflate can produce (zip bomb?)");
    RENSA_CHECK(size <= max_bytes, IOError, what, ": ", size, " bytes is over the limit of ", max_bytes);
    zip_file* file = zip_fopen_index(archive_, entry.index, 0);
    RENSA_CHECK(file != nullptr, IOError, what, ": cannot open: ", zip_strerror(archive_));
    return std::make_unique<MemberReader>(file, what, size);
}

void write_zip(const std::string& path, const std::vector<std::pair<std::string, std::string>>& members,
               bool compression) {
    std::string tmp = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    RENSA_CHECK(fd >= 0, IOError, "save_npz: cannot create a temporary file next to '", path, "'");
    ::fchmod(fd, 0644);  // mkstemp's 0600 would carry over to the saved file
    ::close(fd);
    try {
        write_archive(tmp, members, compression, path);
        sync_file(tmp);
        RENSA_CHECK(std::rename(tmp.c_str(), path.c_str()) == 0, IOError, "save_npz: cannot rename '", tmp, "' to '",
                    path, "'");
    } catch (...) {
        std::remove(tmp.c_str());
        throw;
    }
}

}  // namespace rensa::serializers::zipio
