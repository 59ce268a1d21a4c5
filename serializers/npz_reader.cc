#include "serializers/npz_reader.h"

#include <algorithm>

#include "core/error.h"

namespace rensa::serializers {
namespace {

constexpr std::string_view kSuffix = ".npy";

npy::Header read_header(zipio::MemberReader& member, const std::string& what) {
    std::string bytes(static_cast<size_t>(std::min<int64_t>(npy::kPreludeBytes, member.remaining())), '\0');
    RENSA_CHECK(bytes.size() >= 10, IOError, what, ": too short for a .npy header");
    member.read(bytes.data(), static_cast<int64_t>(bytes.size()));
    const int64_t length = npy::header_length(bytes, what);
    const int64_t rest = length - static_cast<int64_t>(bytes.size());
    RENSA_CHECK(rest <= member.remaining(), IOError, what, ": truncated header");
    if (rest > 0) {
        const size_t start = bytes.size();
        bytes.resize(static_cast<size_t>(length));
        member.read(bytes.data() + start, rest);
    }
    return npy::parse_header(bytes, what);
}

// Object members are read only to compare them with the None pickles: never unpickled, and
// never more than kMaxNonePickleBytes of them.
void check_none(zipio::MemberReader& member, const npy::Header& header, const std::string& what) {
    const int64_t n = member.remaining();
    const bool plausible = header.shape.empty() && n <= npy::kMaxNonePickleBytes;
    std::string data(plausible ? static_cast<size_t>(n) : 0, '\0');
    if (plausible) member.read(data.data(), n);
    RENSA_CHECK(plausible && npy::is_none_pickle(data), IOError, what,
                ": a pickled object array other than None; rensa never unpickles (only Chainer's None marker, "
                "np.array(None, dtype=object) as numpy 1.x or 2.x writes it, is accepted)");
    member.expect_end();
}

}  // namespace

NpzReader::NpzReader(zipio::ZipReader zip, int64_t max_member_bytes)
    : zip_{std::move(zip)}, max_member_bytes_{max_member_bytes} {
    const auto& entries = zip_.entries();
    for (size_t i = 0; i < entries.size(); ++i) {
        const std::string& name = entries[i].name;
        if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
            continue;
        const std::string key = name.substr(0, name.size() - kSuffix.size());
        RENSA_CHECK(index_.emplace(key, i).second, IOError, "'", zip_.name(), "': two members hold key '", key, "'");
    }
}

NpzReader NpzReader::open_file(const std::string& path, int64_t max_member_bytes) {
    return NpzReader{zipio::ZipReader::open_file(path), max_member_bytes};
}

NpzReader NpzReader::open_memory(std::string_view bytes, std::string name, int64_t max_member_bytes) {
    return NpzReader{zipio::ZipReader::open_memory(bytes, std::move(name)), max_member_bytes};
}

std::vector<std::string> NpzReader::keys() const {
    std::vector<std::string> keys;
    for (const auto& [key, i] : index_) keys.push_back(key);
    return keys;
}

NpyMemberReader NpzReader::open(const std::string& key) const {
    const auto it = index_.find(key);
    RENSA_CHECK(it != index_.end(), KeyError, "'", zip_.name(), "': no member for key '", key, "'");
    const zipio::Entry& entry = zip_.entries()[it->second];
    std::string what = "'" + zip_.name() + "': key '" + key + "'";
    auto member = zip_.open(entry, max_member_bytes_);
    npy::Header header = read_header(*member, what);
    if (header.descr.kind == 'O') {
        check_none(*member, header, what);
        return NpyMemberReader{std::move(header), true, nullptr, std::move(what)};
    }
    const int64_t data_bytes = header.data_bytes();
    RENSA_CHECK(data_bytes == member->remaining(), IOError, what, ": the header implies ", data_bytes,
                " data bytes (shape ", header.shape.size(), "-d, ", header.count, " x ", header.descr.text,
                ") but the member holds ", member->remaining());
    return NpyMemberReader{std::move(header), false, std::move(member), std::move(what)};
}

NpyMember NpzReader::read(const std::string& key) const {
    NpyMemberReader member = open(key);
    NpyMember out{member.header(), member.is_none(), {}};
    if (!out.is_none) {
        out.data.resize(static_cast<size_t>(out.header.data_bytes()));
        member.read_into(out.data.data());
    }
    return out;
}

NpyMemberReader::NpyMemberReader(npy::Header header, bool is_none, std::unique_ptr<zipio::MemberReader> member,
                                 std::string what)
    : header_{std::move(header)}, is_none_{is_none}, member_{std::move(member)}, what_{std::move(what)} {}

NpyMemberReader::~NpyMemberReader() = default;
NpyMemberReader::NpyMemberReader(NpyMemberReader&&) noexcept = default;

void NpyMemberReader::read_into(char* out) {
    RENSA_CHECK(member_ != nullptr, IOError, what_, ": read_into() on a None member or twice");
    const auto member = std::move(member_);
    npy::decode_into(
        header_, [&](char* dst, int64_t n) { member->read(dst, n); }, out, what_);
    member->expect_end();
}

}  // namespace rensa::serializers
