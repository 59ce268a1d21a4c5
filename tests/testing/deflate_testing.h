#pragma once
// Decompression bombs for tests, made in milliseconds: deflate data of a prefix followed by
// gigabytes of zeros, wrapped as a zip archive of one member or as a gzip file. The
// compressed form of 1 MiB of zeros after a full flush (which resets the compressor) is the
// same every time, so it is made once and repeated; the CRC-32 is combined, not computed
// over the zeros. Header-only; needs zlib.

#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rensa::testing {

struct Deflated {
    std::string data;  // raw deflate (RFC 1951), no zlib or gzip wrapper
    uint32_t crc = 0;  // CRC-32 of the inflated bytes
    int64_t size = 0;  // inflated bytes
};

namespace detail {

// Compresses `in` into `out` with `flush`, until zlib has taken all of it.
inline void deflate_some(z_stream& zs, std::string_view in, int flush, std::string& out) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    char buffer[1 << 16];
    int rc = Z_OK;
    do {
        zs.next_out = reinterpret_cast<Bytef*>(buffer);
        zs.avail_out = sizeof buffer;
        rc = ::deflate(&zs, flush);
        if (rc == Z_STREAM_ERROR) throw std::runtime_error("deflate failed");
        out.append(buffer, sizeof buffer - zs.avail_out);
    } while (zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

inline void put_le(std::string& out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

}  // namespace detail

// `prefix` then `zero_mib` MiB of zero bytes, deflated (about 1 KiB per MiB of zeros).
inline Deflated deflate_with_zeros(std::string_view prefix, int64_t zero_mib) {
    constexpr size_t kMiB = size_t{1} << 20;
    z_stream zs{};
    if (::deflateInit2(&zs, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2");
    const std::string zeros(kMiB, '\0');
    Deflated out;
    detail::deflate_some(zs, prefix, Z_FULL_FLUSH, out.data);
    std::string first, second;
    detail::deflate_some(zs, zeros, Z_FULL_FLUSH, first);
    detail::deflate_some(zs, zeros, Z_FULL_FLUSH, second);
    if (first != second) throw std::runtime_error("deflate_with_zeros: a full flush did not reset the compressor");
    for (int64_t i = 0; i < zero_mib; ++i) out.data += first;
    detail::deflate_some(zs, {}, Z_FINISH, out.data);
    ::deflateEnd(&zs);
    uLong crc = ::crc32(0L, reinterpret_cast<const Bytef*>(prefix.data()), static_cast<uInt>(prefix.size()));
    const uLong zeros_crc = ::crc32(0L, reinterpret_cast<const Bytef*>(zeros.data()), static_cast<uInt>(kMiB));
    for (int64_t i = 0; i < zero_mib; ++i) crc = ::crc32_combine(crc, zeros_crc, static_cast<z_off_t>(kMiB));
    out.crc = static_cast<uint32_t>(crc);
    out.size = static_cast<int64_t>(prefix.size()) + zero_mib * static_cast<int64_t>(kMiB);
    return out;
}

// A zip archive of one deflated member `name` (sizes under 4 GiB: no zip64).
inline std::string zip_of(const std::string& name, const Deflated& member) {
    std::string out;
    const auto header = [&](bool central) {
        detail::put_le(out, central ? 0x02014b50 : 0x04034b50, 4);
        if (central) detail::put_le(out, 20, 2);  // made by
        detail::put_le(out, 20, 2);               // version needed
        detail::put_le(out, 0, 2);                // flags
        detail::put_le(out, 8, 2);                // deflate
        detail::put_le(out, 0, 2);                // time
        detail::put_le(out, 0x21, 2);             // date: 1980-01-01
        detail::put_le(out, member.crc, 4);
        detail::put_le(out, member.data.size(), 4);
        detail::put_le(out, static_cast<uint64_t>(member.size), 4);
        detail::put_le(out, name.size(), 2);
        detail::put_le(out, 0, 2);  // extra
        if (central) {
            detail::put_le(out, 0, 2);  // comment
            detail::put_le(out, 0, 2);  // disk
            detail::put_le(out, 0, 2);  // internal attributes
            detail::put_le(out, 0, 4);  // external attributes
            detail::put_le(out, 0, 4);  // offset of the local header
        }
        out += name;
    };
    header(false);
    out += member.data;
    const size_t central = out.size();
    header(true);
    const size_t central_size = out.size() - central;
    detail::put_le(out, 0x06054b50, 4);
    detail::put_le(out, 0, 4);  // disks
    detail::put_le(out, 1, 2);  // entries on this disk
    detail::put_le(out, 1, 2);  // entries
    detail::put_le(out, central_size, 4);
    detail::put_le(out, central, 4);
    detail::put_le(out, 0, 2);  // comment
    return out;
}

// A gzip file (RFC 1952) of the deflated data.
inline std::string gzip_of(const Deflated& data) {
    std::string out{"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03", 10};
    out += data.data;
    detail::put_le(out, data.crc, 4);
    detail::put_le(out, static_cast<uint64_t>(data.size) & 0xffffffffu, 4);
    return out;
}

}  // namespace rensa::testing
