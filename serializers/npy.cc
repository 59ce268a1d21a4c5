#include "serializers/npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <limits>

#include "core/error.h"

namespace rensa::serializers::npy {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr int64_t kAlign = 64;  // numpy's ARRAY_ALIGN
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// A cursor over the header text: the small subset of Python literals numpy writes.
class Parser {
public:
    Parser(std::string_view text, std::string_view what) : text_{text}, what_{what} {}

    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    }
    bool accept(char c) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!accept(c)) fail("expected '", c, "'");
    }
    std::string string_literal() {
        skip_space();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) fail("expected a string");
        const char quote = text_[pos_++];
        const size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos || end - pos_ > 64) fail("unterminated or overlong string");
        std::string s{text_.substr(pos_, end - pos_)};
        if (s.find('\\') != std::string::npos) fail("escapes are not allowed in strings");
        pos_ = end + 1;
        return s;
    }
    bool bool_literal() {
        skip_space();
        if (text_.substr(pos_, 4) == "True") {
            pos_ += 4;
            return true;
        }
        if (text_.substr(pos_, 5) == "False") {
            pos_ += 5;
            return false;
        }
        fail("expected True or False");
    }
    int64_t int_literal() {
        skip_space();
        const size_t start = pos_;
        int64_t v = 0;
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
            const int digit = text_[pos_++] - '0';
            if (v > (kInt64Max - digit) / 10) fail("a dimension overflows int64");
            v = v * 10 + digit;
        }
        if (pos_ == start) fail("expected a non-negative integer");
        if (text_[start] == '0' && pos_ - start > 1) fail("leading zeros in a dimension");
        if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2's long suffix
        return v;
    }
    // A tuple of ints: (), (3,), (2, 3) or (2, 3,); (3) is an int in Python, not a tuple.
    std::vector<int64_t> shape_tuple() {
        expect('(');
        std::vector<int64_t> shape;
        while (!accept(')')) {
            if (shape.size() >= 64) fail("more than 64 dimensions");
            shape.push_back(int_literal());
            if (!accept(',')) {
                if (shape.size() == 1) fail("a one-element shape needs a trailing comma");
                expect(')');
                break;
            }
        }
        return shape;
    }
    // Only padding may follow the dict.
    void expect_padding() {
        for (; pos_ < text_.size(); ++pos_) {
            if (text_[pos_] != ' ' && text_[pos_] != '\n' && text_[pos_] != '\t' && text_[pos_] != '\0')
                fail("unexpected text after the header dict");
        }
    }

    template <class... Args>
    [[noreturn]] void fail(const Args&... args) const {
        RENSA_THROW(IOError, "npy: ", what_, ": malformed header at offset ", pos_, ": ", args...);
    }

private:
    std::string_view text_;
    std::string_view what_;
    size_t pos_ = 0;
};

// The character count of a unicode code ("U12"), or -1 when `code` is not one.
int64_t unicode_length(std::string_view code) {
    if (code.size() < 2 || code.size() > 19 || code[0] != 'U') return -1;
    int64_t n = 0;
    for (char c : code.substr(1)) {
        if (c < '0' || c > '9') return -1;
        n = n * 10 + (c - '0');  // at most 18 digits: no overflow
    }
    return n <= kInt64Max / 4 ? n : -1;
}

Descr parse_descr(const std::string& text, std::string_view what) {
    Descr d;
    d.text = text;
    const std::string_view code = text.size() >= 2 ? std::string_view{text}.substr(1) : std::string_view{};
    const bool known_order = !text.empty() && std::string_view{"<>|="}.find(text[0]) != std::string_view::npos;
    static constexpr std::string_view kCodes[] = {"b1", "i1", "u1", "i4", "i8", "f2", "f4", "f8", "V2", "O"};
    bool known_code = false;
    for (std::string_view c : kCodes) known_code = known_code || code == c;
    const int64_t chars = unicode_length(code);
    RENSA_CHECK(known_order && (known_code || chars >= 0), DtypeError, "npy: ", what, ": unsupported descr '", text,
                "'; rensa reads b1, i1, u1, i4, i8, f2, f4, f8, V2 (bfloat16), U<n> (strings) and the pickled None "
                "(|O)");
    d.byte_order = text[0];
    d.kind = code[0];
    d.itemsize = chars >= 0 ? 4 * chars : code.size() == 2 ? code[1] - '0' : 0;
    return d;
}

// Element count and byte size, refusing anything whose size does not fit int64.
int64_t checked_count(const Header& h, std::string_view what) {
    int64_t count = 1;
    for (int64_t n : h.shape) {
        RENSA_CHECK(n == 0 || count <= kInt64Max / n, IOError, "npy: ", what, ": the shape's size overflows int64");
        count *= n;
    }
    const int64_t item = h.descr.itemsize > 0 ? h.descr.itemsize : 1;
    RENSA_CHECK(count <= (kInt64Max - h.header_bytes) / item, IOError, "npy: ", what,
                ": the data size overflows int64");
    return count;
}

uint32_t read_le(std::string_view s, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(s[static_cast<size_t>(i)]);
    return v;
}

// One UTF-8 sequence at `pos` (advanced past it): its code point, or -1 for a
// malformed, truncated, overlong or surrogate sequence or one above U+10FFFF.
int64_t next_code_point(std::string_view s, size_t& pos) {
    const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
    const uint8_t lead = byte(pos);
    const int len = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || pos + static_cast<size_t>(len) > s.size()) return -1;
    uint32_t cp = len == 1 ? lead : lead & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
        const uint8_t b = byte(pos + static_cast<size_t>(k));
        if ((b & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    pos += static_cast<size_t>(len);
    return cp;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
        return;
    }
    const int len = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    static constexpr uint8_t kLead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    out += static_cast<char>(kLead[len] | (cp >> (6 * (len - 1))));
    for (int k = len - 2; k >= 0; --k) out += static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3F));
}

// Swaps the bytes of each element (each UTF-32 unit of a string) when the stored order is
// not the host's, and turns bool bytes into 0 or 1, over out[0, bytes).
void fix_in_place(const Header& h, char* out, int64_t bytes) {
    const int64_t unit = h.descr.kind == 'U' ? 4 : h.descr.itemsize;
    const bool big = h.descr.byte_order == '>';
    if (unit > 1 && big != (std::endian::native == std::endian::big) && h.descr.byte_order != '|' &&
        h.descr.byte_order != '=') {
        for (int64_t i = 0; i + unit <= bytes; i += unit) std::reverse(out + i, out + i + unit);
    }
    if (h.descr.kind == 'b') {
        for (int64_t i = 0; i < bytes; ++i) out[i] = out[i] != 0 ? 1 : 0;
    }
}

// Fortran-order data, read a buffer of whole elements at a time; each element goes to its C
// position, tracked by an odometer over the Fortran order (first axis fastest).
void scatter_fortran(const Header& h, const ReadFn& read, char* out) {
    const int64_t item = h.descr.itemsize;
    const size_t ndim = h.shape.size();
    std::vector<int64_t> index(ndim, 0), cstride(ndim, 1);
    for (size_t k = ndim - 1; k-- > 0;) cstride[k] = cstride[k + 1] * h.shape[k + 1];
    const int64_t per_read = std::min(h.count, std::max<int64_t>(1, kDecodeBufferBytes / item));
    std::vector<char> buffer(static_cast<size_t>(per_read * item));
    int64_t c = 0;  // C-order index of the next element
    for (int64_t done = 0; done < h.count;) {
        const int64_t n = std::min(per_read, h.count - done);
        read(buffer.data(), n * item);
        for (int64_t e = 0; e < n; ++e) {
            std::memcpy(out + c * item, buffer.data() + e * item, static_cast<size_t>(item));
            for (size_t k = 0; k < ndim; ++k) {
                c += cstride[k];
                if (++index[k] < h.shape[k]) break;
                c -= cstride[k] * h.shape[k];
                index[k] = 0;
            }
        }
        done += n;
    }
}

}  // namespace

int64_t header_length(std::string_view prelude, std::string_view what) {
    RENSA_CHECK(prelude.size() >= 10 && prelude.substr(0, 6) == kMagic, IOError, "npy: ", what,
                ": not a .npy member (bad magic)");
    const int major = static_cast<uint8_t>(prelude[6]), minor = static_cast<uint8_t>(prelude[7]);
    RENSA_CHECK(minor == 0 && major >= 1 && major <= 3, IOError, "npy: ", what, ": unknown format version ", major, ".",
                minor);
    const int field = major == 1 ? 2 : 4;
    RENSA_CHECK(prelude.size() >= static_cast<size_t>(8 + field), IOError, "npy: ", what, ": truncated header");
    const int64_t text = read_le(prelude.substr(8), field);
    RENSA_CHECK(text <= kMaxHeaderBytes, IOError, "npy: ", what, ": header of ", text, " bytes is over the limit of ",
                kMaxHeaderBytes);
    return 8 + field + text;
}

Header parse_header(std::string_view bytes, std::string_view what) {
    Header h;
    h.header_bytes = header_length(bytes, what);
    RENSA_CHECK(static_cast<int64_t>(bytes.size()) >= h.header_bytes, IOError, "npy: ", what, ": truncated header");
    const int64_t text_start = static_cast<uint8_t>(bytes[6]) == 1 ? 10 : 12;
    Parser p{bytes.substr(text_start, h.header_bytes - text_start), what};
    bool seen[3] = {false, false, false};
    p.expect('{');
    while (!p.accept('}')) {
        const std::string key = p.string_literal();
        p.expect(':');
        const int slot = key == "descr" ? 0 : key == "fortran_order" ? 1 : key == "shape" ? 2 : -1;
        if (slot < 0) p.fail("unknown key '", key, "'");
        if (seen[slot]) p.fail("duplicate key '", key, "'");
        seen[slot] = true;
        if (slot == 0) h.descr = parse_descr(p.string_literal(), what);
        if (slot == 1) h.fortran_order = p.bool_literal();
        if (slot == 2) h.shape = p.shape_tuple();
        if (!p.accept(',')) {
            p.expect('}');
            break;
        }
    }
    p.expect_padding();
    if (!(seen[0] && seen[1] && seen[2])) p.fail("the keys descr, fortran_order and shape are all required");
    h.count = checked_count(h, what);
    return h;
}

std::string format_header(std::string_view descr, bool fortran_order, const std::vector<int64_t>& shape) {
    std::string dict = "{'descr': '" + std::string{descr} +
                       "', 'fortran_order': " + (fortran_order ? "True" : "False") + ", 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
    dict += shape.size() == 1 ? ",), }" : "), }";
    const bool v1 = dict.size() + 1 + 10 + kAlign <= 65535;
    const int64_t prelude = v1 ? 10 : 12;
    const int64_t hlen = static_cast<int64_t>(dict.size()) + 1;
    const int64_t pad = kAlign - (prelude + hlen) % kAlign;
    const int64_t text = hlen + pad;
    std::string out{kMagic};
    out += static_cast<char>(v1 ? 1 : 2);
    out += '\0';
    for (int i = 0; i < (v1 ? 2 : 4); ++i) out += static_cast<char>((text >> (8 * i)) & 0xff);
    out += dict;
    out.append(static_cast<size_t>(pad), ' ');
    out += '\n';
    return out;
}

void decode_into(const Header& h, const ReadFn& read, char* out, std::string_view what) {
    RENSA_CHECK(h.descr.kind != 'O', IOError, "npy: ", what, ": object arrays have no raw data");
    const int64_t bytes = h.data_bytes();
    if (bytes == 0) return;
    if (h.fortran_order && h.shape.size() > 1) {
        scatter_fortran(h, read, out);
    } else {
        read(out, bytes);
    }
    fix_in_place(h, out, bytes);
}

std::vector<char> decode(const Header& h, std::string_view data, std::string_view what) {
    RENSA_CHECK(h.descr.kind != 'O', IOError, "npy: ", what, ": object arrays have no raw data");
    RENSA_CHECK(static_cast<int64_t>(data.size()) == h.data_bytes(), IOError, "npy: ", what, ": ", data.size(),
                " data bytes where the header says ", h.data_bytes());
    std::vector<char> out(data.size());
    size_t pos = 0;
    const ReadFn from_data = [&](char* dst, int64_t n) {
        std::memcpy(dst, data.data() + pos, static_cast<size_t>(n));
        pos += static_cast<size_t>(n);
    };
    decode_into(h, from_data, out.data(), what);
    return out;
}

// Note [None pickles]: np.save pickles an object array (pickle.dump(array, protocol=P)); for
// np.array(None, dtype=object) that is numpy.core.multiarray._reconstruct(ndarray, (0,), b'b')
// with the state (1, (), dtype('O8') with the state (3, '|', None, None, None, -1, -1, 63),
// False, [None]), spelled in protocol P's opcodes. numpy has written three spellings:
//   protocol 2: numpy up to 1.16 under Python 3 (bytes pickled as _codecs.encode(str, 'latin1'))
//   protocol 3: numpy 1.17 to 1.26
//   protocol 4: numpy 2.x (module numpy._core.multiarray, framed, memoized by MEMOIZE)
// Each below is the output of real numpy: protocol 3 of numpy 1.26's np.save, protocol 4 of
// numpy 2.0 to 2.4's (identical), protocol 2 of pickle.dumps(array, protocol=2) under numpy
// 1.26 (what numpy 1.16's np.save calls). A member equal to none of them is refused.
constexpr char kNonePickle2[] =
    "\x80\x02"
    "cnumpy.core.multiarray\n_reconstruct\nq\x00"
    "cnumpy\nndarray\nq\x01K\x00\x85q\x02"
    "c_codecs\nencode\nq\x03X\x01\x00\x00\x00"
    "bq\x04X\x06\x00\x00\x00latin1q\x05\x86q\x06Rq\x07\x87q\x08Rq\t(K\x01)cnumpy\ndtype\nq\nX\x02\x00\x00\x00O"
    "8q\x0b\x89\x88\x87q\x0cRq\x0d(K\x03X\x01\x00\x00\x00|q\x0eNNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK"
    "?tq\x0f"
    "b\x89]q\x10Natq\x11"
    "b.";
constexpr char kNonePickle3[] =
    "\x80\x03"
    "cnumpy.core.multiarray\n_reconstruct\nq\x00"
    "cnumpy\nndarray\nq\x01K\x00\x85q\x02"
    "C\x01"
    "bq\x03\x87q\x04Rq\x05(K\x01)cnumpy\ndtype\nq\x06X\x02\x00\x00\x00O8q\x07\x89\x88\x87q\x08Rq\t(K\x03X\x01\x00\x00"
    "\x00|q\nNNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tq\x0b"
    "b\x89]q\x0cNatq\rb.";
constexpr char kNonePickle4[] =
    "\x80\x04\x95\x87\x00\x00\x00\x00\x00\x00\x00\x8c\x16numpy._core.multiarray\x94\x8c\x0c_reco"
    "nstruct\x94\x93\x94\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94"
    "C\x01"
    "b\x94\x87\x94R\x94(K\x01)h\x03\x8c\x05"
    "dtype\x94\x93\x94\x8c\x02O8\x94\x89\x88\x87\x94R\x94(K\x03\x8c\x01|\x94NNNJ\xff\xff\xff\xffJ"
    "\xff\xff\xff\xffK?t\x94"
    "b\x89]\x94Nat\x94"
    "b.";
constexpr std::string_view kNonePickles[] = {
    {kNonePickle2, sizeof(kNonePickle2) - 1},
    {kNonePickle3, sizeof(kNonePickle3) - 1},
    {kNonePickle4, sizeof(kNonePickle4) - 1},
};
static_assert(sizeof(kNonePickle2) - 1 <= kMaxNonePickleBytes && sizeof(kNonePickle3) - 1 <= kMaxNonePickleBytes &&
              sizeof(kNonePickle4) - 1 <= kMaxNonePickleBytes);
const std::string_view kNonePickle = kNonePickles[1];

bool is_none_pickle(std::string_view data) {
    return std::find(std::begin(kNonePickles), std::end(kNonePickles), data) != std::end(kNonePickles);
}

std::string none_member() { return format_header("|O", false, {}) + std::string{kNonePickle}; }

std::string string_member(std::string_view utf8, std::string_view what) {
    std::string units;
    units.reserve(4 * utf8.size());
    for (size_t pos = 0; pos < utf8.size();) {
        const size_t at = pos;
        const int64_t cp = next_code_point(utf8, pos);
        RENSA_CHECK(cp >= 0, ValueError, "npy: ", what, ": the string is not valid UTF-8 (byte ", at, " of ",
                    utf8.size(), ")");
        for (int k = 0; k < 4; ++k) units += static_cast<char>((cp >> (8 * k)) & 0xff);  // UTF-32LE
    }
    // numpy writes np.array('') as '<U1' holding one NUL.
    if (units.empty()) units.assign(4, '\0');
    return format_header("<U" + std::to_string(units.size() / 4), false, {}) + units;
}

std::string decode_string(const Header& header, const std::vector<char>& data, std::string_view what) {
    RENSA_CHECK(header.descr.kind == 'U' && data.size() % 4 == 0, DtypeError, "npy: ", what, ": descr '",
                header.descr.text, "' is not a string");
    std::vector<uint32_t> cps(data.size() / 4);
    if (!data.empty()) std::memcpy(cps.data(), data.data(), data.size());
    while (!cps.empty() && cps.back() == 0) cps.pop_back();  // numpy strips the padding NULs
    std::string out;
    out.reserve(cps.size());
    for (size_t i = 0; i < cps.size(); ++i) {
        const uint32_t cp = cps[i];
        RENSA_CHECK(cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF), IOError, "npy: ", what, ": invalid code point 0x",
                    std::hex, cp, std::dec, " at character ", i, " of a ", header.descr.text, " string");
        append_utf8(out, cp);
    }
    return out;
}

}  // namespace rensa::serializers::npy
