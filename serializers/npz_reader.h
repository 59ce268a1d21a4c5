#pragma once
// Reading `.npz` members (numpy.savez's zip of `<key>.npy` files) as validated bytes.
// Each member's sizes are checked in this order before anything large is allocated: the
// zip entry (method, ratio, limit), the npy header, then the header's implied size against
// the entry's size. open() stops there, so a caller can check the header against its
// target before it allocates anything; read_into() then inflates and decodes straight
// into the caller's buffer. Needs no Array (the fuzz target builds it alone).

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "serializers/npy.h"
#include "serializers/zip.h"

namespace rensa::serializers {

// One member: its header and its elements in C order, native byte order; or the
// pickled None Chainer writes for an uninitialised value.
struct NpyMember {
    npy::Header header;
    bool is_none = false;
    std::vector<char> data;
};

// One member whose header was read and checked against the zip entry's size, its data not
// yet (None members are read and recognised at once). It reads from the NpzReader that
// opened it, which must outlive it.
class NpyMemberReader {
public:
    NpyMemberReader(npy::Header header, bool is_none, std::unique_ptr<zipio::MemberReader> member, std::string what);
    ~NpyMemberReader();
    NpyMemberReader(NpyMemberReader&&) noexcept;
    NpyMemberReader& operator=(NpyMemberReader&&) = delete;

    const npy::Header& header() const { return header_; }
    bool is_none() const { return is_none_; }
    // Inflates and decodes the data into `out` (header().data_bytes() bytes: C order, native
    // byte order; see npy::decode_into), with at most a bounded buffer besides. Once only;
    // IOError when the data is corrupt or the member longer than its header says.
    void read_into(char* out);

private:
    npy::Header header_;
    bool is_none_;
    std::unique_ptr<zipio::MemberReader> member_;
    std::string what_;
};

class NpzReader {
public:
    // Reads the whole central directory; throws IOError when the source is not a zip or
    // holds two members with one key.
    static NpzReader open_file(const std::string& path, int64_t max_member_bytes = std::numeric_limits<int64_t>::max());
    static NpzReader open_memory(std::string_view bytes, std::string name = "<memory>",
                                 int64_t max_member_bytes = std::numeric_limits<int64_t>::max());

    const std::string& name() const { return zip_.name(); }
    // Keys are member names without ".npy" ("predictor/l1/W"); other members are ignored.
    bool contains(const std::string& key) const { return index_.count(key) != 0; }
    std::vector<std::string> keys() const;
    // Opens one member and reads its header; throws KeyError (absent), IOError (malformed,
    // truncated, oversized, pickled other than None) or DtypeError (unsupported descr),
    // naming the file and key.
    [[nodiscard]] NpyMemberReader open(const std::string& key) const;
    // open() and read_into() a new buffer; the same errors.
    [[nodiscard]] NpyMember read(const std::string& key) const;

private:
    NpzReader(zipio::ZipReader zip, int64_t max_member_bytes);

    zipio::ZipReader zip_;
    int64_t max_member_bytes_;
    std::map<std::string, size_t> index_;  // key -> position in zip_.entries()
};

}  // namespace rensa::serializers
