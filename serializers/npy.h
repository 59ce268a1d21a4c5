#pragma once
// The `.npy` format (numpy's NEP 1) at the byte level: header parsing with strict
// validation, header writing exactly as numpy writes it, decoding of the data to
// C-order native-endian bytes, and the pickle numpy writes for an object array
// holding None (Chainer's marker for an uninitialised parameter).
//
// This layer knows no Array and links nothing but the C++ library (core/error.h is
// header-only here), so the fuzz target compiles it alone.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rensa::serializers::npy {

// Longest header accepted (numpy's own reader stops at 10000 bytes by default).
inline constexpr int64_t kMaxHeaderBytes = 1 << 16;
// Bytes before the header text: magic (6), version (2) and the length field (2 or 4).
inline constexpr int64_t kPreludeBytes = 12;

// A parsed descr: byte order ('<', '>', '|' or '='), kind ('b', 'i', 'u', 'f', 'V',
// 'U' for UTF-32 strings, or 'O' for pickled objects) and item size in bytes (0 for 'O',
// 4 per character for 'U').
struct Descr {
    char byte_order = '|';
    char kind = 'f';
    int64_t itemsize = 0;
    std::string text;  // as written in the file, for messages
};

struct Header {
    Descr descr;
    bool fortran_order = false;
    std::vector<int64_t> shape;
    int64_t count = 0;         // elements (1 for shape ())
    int64_t header_bytes = 0;  // offset of the data from the start of the member
    // Bytes of data the header implies; -1 for object arrays (a pickle of any length).
    int64_t data_bytes() const { return descr.kind == 'O' ? -1 : count * descr.itemsize; }
};

// Length of the whole header (prelude + text) from the first kPreludeBytes bytes;
// throws IOError on a bad magic, an unknown version or a header over kMaxHeaderBytes.
// `what` names the member in messages ("'model.npz': member 'W.npy'").
int64_t header_length(std::string_view prelude, std::string_view what);

// Parses the header at the start of `bytes` (which must hold at least header_length
// bytes). Only the dict numpy writes is accepted: the keys descr, fortran_order and
// shape once each, a descr among b1, i1, u1, i4, i8, f2, f4, f8, V2 (bfloat16) and
// |O, and a tuple of non-negative ints whose product (times the item size) fits int64.
// Throws IOError (malformed) or DtypeError (a well-formed but unsupported descr).
Header parse_header(std::string_view bytes, std::string_view what);

// The header numpy writes for `descr` ("<f4"), padded with spaces to a multiple of 64
// bytes and ended by '\n'; version 1.0 unless the text needs version 2.0.
std::string format_header(std::string_view descr, bool fortran_order, const std::vector<int64_t>& shape);

// Supplies the next `n` bytes of a member's data into `out`, or throws.
using ReadFn = std::function<void(char* out, int64_t n)>;
// Largest buffer decode_into uses (one element when an element is larger).
inline constexpr int64_t kDecodeBufferBytes = 1 << 20;

// Reads the header's data (header.data_bytes() bytes) through `read` into `out` as C-order,
// native-endian elements; bool bytes become 0 or 1; 'U' data becomes native-endian UTF-32.
// C-order data is read straight into `out` and fixed in place; Fortran-order data goes
// through a buffer of at most kDecodeBufferBytes, each element copied to its C position.
// So decoding needs the destination plus a bounded buffer, never a second copy. IOError
// (naming `what`) for an object array, which has no raw data.
void decode_into(const Header& header, const ReadFn& read, char* out, std::string_view what);

// decode_into from `data` (header.data_bytes() bytes). Throws IOError when the size
// does not match.
std::vector<char> decode(const Header& header, std::string_view data, std::string_view what);

// The whole member numpy writes for np.save(f, np.array(utf8_as_str)): a 0-d '<U<n>'
// array, n code points of UTF-32LE ('<U1' holding a NUL for ""). Throws ValueError
// when `utf8` is not valid UTF-8 (`what` names the key).
std::string string_member(std::string_view utf8, std::string_view what);
// The UTF-8 text of decoded 'U' data (see decode), without numpy's trailing NUL padding
// (so, like numpy, a string's own trailing NULs do not survive). Throws IOError for a
// code point that is a surrogate or above U+10FFFF, DtypeError when the kind is not 'U'.
std::string decode_string(const Header& header, const std::vector<char>& data, std::string_view what);

// The data numpy 1.17 to 1.26 write for np.array(None, dtype=object) (pickle protocol 3,
// module numpy.core): what rensa writes, since numpy 1.x and 2.x both read it.
extern const std::string_view kNonePickle;
// The longest of the None pickles is_none_pickle knows.
inline constexpr int64_t kMaxNonePickleBytes = 256;
// True when `data` is, byte for byte, one of the pickles numpy writes for
// np.array(None, dtype=object): protocol 2 (numpy before 1.17, under Python 3), protocol 3
// (numpy 1.17 to 1.26) or protocol 4 (numpy 2.x, module numpy._core). See Note [None
// pickles] in npy.cc. Nothing pickled is ever interpreted.
bool is_none_pickle(std::string_view data);
// The whole member numpy writes for np.save(f, np.array(None, dtype=object)).
std::string none_member();

}  // namespace rensa::serializers::npy
