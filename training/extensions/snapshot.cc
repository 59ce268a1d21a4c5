#include "training/extensions/snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <regex>
#include <sstream>
#include <utility>

#include "serializers/npz.h"
#include "training/trainer.h"

namespace rensa::training::extensions {
namespace fs = std::filesystem;

namespace {

enum class FieldKind { kNone, kInt, kFloat };

// One piece of a parsed template: literal text, or a field with its format spec.
struct Piece {
    std::string literal;
    std::string field;  // ".updater.iteration", ... (empty for literal text)
    std::string spec;
    FieldKind kind = FieldKind::kNone;
};

constexpr const char* kFields = "{.updater.iteration}, {.updater.epoch}, {.updater.epoch_detail}, {.elapsed_time}";

FieldKind field_kind(const std::string& field) {
    if (field == ".updater.iteration" || field == ".updater.epoch") return FieldKind::kInt;
    if (field == ".updater.epoch_detail" || field == ".elapsed_time") return FieldKind::kFloat;
    return FieldKind::kNone;
}

// "{field:spec}" starting at tmpl[open] (the '{'); returns the index after the '}'.
size_t parse_field(const std::string& tmpl, size_t open, std::vector<Piece>& pieces) {
    const size_t close = tmpl.find_first_of("{}", open + 1);
    RENSA_CHECK(close != std::string::npos && tmpl[close] == '}', ValueError, "snapshot: filename '", tmpl,
                "': unbalanced '{' at ", open, " (nested fields are not supported; write '{{' for a brace)");
    const std::string body = tmpl.substr(open + 1, close - open - 1);
    const size_t colon = body.find(':');
    Piece piece;
    piece.field = body.substr(0, colon);
    piece.spec = colon == std::string::npos ? "" : body.substr(colon + 1);
    if (piece.field.rfind("0.", 0) == 0) piece.field.erase(0, 1);  // "{0.updater.iteration}": the same argument
    piece.kind = field_kind(piece.field);
    RENSA_CHECK(piece.kind != FieldKind::kNone, ValueError, "snapshot: filename '", tmpl, "': unknown field '{", body,
                "}'; the fields are ", kFields);
    pieces.push_back(std::move(piece));
    return close + 1;
}

Piece literal_piece(std::string text) {
    Piece piece;
    piece.literal = std::move(text);
    return piece;
}

std::vector<Piece> parse_template(const std::string& tmpl) {
    RENSA_CHECK(!tmpl.empty() && tmpl.find('/') == std::string::npos, ValueError, "snapshot: filename '", tmpl,
                "' must be a non-empty file name without '/' (it is written directly in the trainer's out folder)");
    std::vector<Piece> pieces;
    std::string literal;
    for (size_t i = 0; i < tmpl.size();) {
        const char c = tmpl[i];
        if ((c == '{' || c == '}') && i + 1 < tmpl.size() && tmpl[i + 1] == c) {
            literal += c;
            i += 2;
        } else if (c == '}') {
            RENSA_THROW(ValueError, "snapshot: filename '", tmpl, "': single '}' at ", i, " (write '}}' for a brace)");
        } else if (c == '{') {
            pieces.push_back(literal_piece(std::exchange(literal, {})));
            i = parse_field(tmpl, i, pieces);
        } else {
            literal += c;
            ++i;
        }
    }
    pieces.push_back(literal_piece(literal));
    return pieces;
}

// Python's repr of a float: the shortest round-trip digits, fixed for exponents in
// [-4, 16), scientific otherwise ("0.5", "1.0", "1e-05", "1e+16").
std::string python_repr(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
    const std::string sci{buf, result.ptr};
    const size_t e = sci.find('e');
    const int exponent = std::stoi(sci.substr(e + 1));
    if (exponent < -4 || exponent >= 16) return sci;
    const bool negative = sci[0] == '-';
    std::string digits = sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0));
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    std::string out = negative ? "-" : "";
    if (exponent < 0) return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    const auto point = static_cast<size_t>(exponent + 1);
    if (digits.size() <= point) return out + digits + std::string(point - digits.size(), '0') + ".0";
    return out + digits.substr(0, point) + "." + digits.substr(point);
}

// The subset of Python's format spec rensa supports: [0][width][.precision][d|f|e|g].
std::string format_value(const Piece& piece, int64_t int_value, double float_value, const std::string& tmpl) {
    static const std::regex kSpec{R"(^(0?)([0-9]*)(?:\.([0-9]+))?([dfeg]?)$)"};
    std::smatch m;
    RENSA_CHECK(std::regex_match(piece.spec, m, kSpec), ValueError, "snapshot: filename '", tmpl,
                "': unsupported format spec '", piece.spec, "' for '", piece.field,
                "' (supported: [0][width][.precision][d|f|e|g])");
    const std::string type = m[4].str();
    const bool is_int = piece.kind == FieldKind::kInt;
    RENSA_CHECK(!(is_int && type.empty() && m[3].matched) && !(!is_int && type == "d"), ValueError,
                "snapshot: filename '", tmpl, "': format spec '", piece.spec, "' does not apply to ",
                is_int ? "the integer " : "the float ", piece.field);
    std::string body;
    if (is_int && (type.empty() || type == "d")) {
        body = std::to_string(int_value);
    } else {
        const double v = is_int ? static_cast<double>(int_value) : float_value;
        const int precision = m[3].matched ? std::stoi(m[3].str()) : 6;
        char buf[512];
        const char conv = type.empty() ? 'g' : type[0];
        std::snprintf(buf, sizeof(buf), (std::string{"%.*"} + conv).c_str(), std::min(precision, 100), v);
        body = type.empty() && !m[3].matched ? python_repr(v) : buf;
    }
    const size_t width = m[2].str().empty() ? 0 : std::stoul(m[2].str());
    if (body.size() < width) {
        const size_t sign = m[1].str().empty() || body[0] != '-' ? 0 : 1;
        body.insert(sign, width - body.size(), m[1].str().empty() ? ' ' : '0');
    }
    return body;
}

std::string regex_escape(const std::string& text) {
    static const std::string kSpecial = R"(\^$.|?*+()[]{})";
    std::string out;
    for (const char c : text) {
        if (kSpecial.find(c) != std::string::npos) out += '\\';
        out += c;
    }
    return out;
}

// True when a sorts before b in natural order (digit runs compared as numbers).
bool natural_less(const std::string& a, const std::string& b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            const size_t i0 = i, j0 = j;
            while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
            while (j < b.size() && std::isdigit(static_cast<unsigned char>(b[j]))) ++j;
            std::string_view x{a.data() + i0, i - i0}, y{b.data() + j0, j - j0};
            while (x.size() > 1 && x[0] == '0') x.remove_prefix(1);
            while (y.size() > 1 && y[0] == '0') y.remove_prefix(1);
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i, ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

// The regex of the names `pieces` produce, each field a capture group.
std::string name_pattern(const std::vector<Piece>& pieces) {
    std::string pattern;
    for (const Piece& piece : pieces) {
        pattern += regex_escape(piece.literal);
        if (piece.kind == FieldKind::kInt) pattern += "([-+ 0-9]+)";
        if (piece.kind == FieldKind::kFloat) pattern += "([-+ 0-9.eEinfa]+)";
    }
    return pattern;
}

// What mkstemp ("XXXXXX"), save_npz (".tmp-XXXXXX") and libzip (".XXXXXX") append to
// "tmp<filename>" (See Note [Snapshot writes]).
constexpr const char* kTemporarySuffix = R"([A-Za-z0-9]{6}(\.tmp-[A-Za-z0-9]{6})?(\.[A-Za-z0-9]{6})?)";

// The fields whose values show training progress, most significant first (Note [Autoload order]).
constexpr const char* kProgressFields[] = {".updater.iteration", ".updater.epoch_detail", ".updater.epoch",
                                           ".elapsed_time"};

// A number as a template formats it ("  12", "+3", "0.50", "1e-05"); -inf when it is none.
double parse_number(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    if (!text.empty() && text[0] == '+') text.erase(0, 1);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool ok = !text.empty() && ec == std::errc{} && end == text.data() + text.size() && !std::isnan(value);
    return ok ? value : -HUGE_VAL;
}

// The progress a name matched by name_pattern(pieces) shows, most significant field first.
std::vector<double> progress_of(const std::vector<Piece>& pieces, const std::smatch& match) {
    std::vector<double> progress;
    for (const char* field : kProgressFields) {
        size_t group = 0;
        for (const Piece& piece : pieces) {
            if (piece.kind == FieldKind::kNone) continue;
            ++group;
            if (piece.field == field) {
                progress.push_back(parse_number(match[group].str()));
                break;
            }
        }
    }
    return progress;
}

// A snapshot file found in the out folder, with what orders it.
struct FoundFile {
    std::vector<double> progress;
    fs::file_time_type mtime;
    std::string name;
};

bool older(const FoundFile& a, const FoundFile& b) {
    if (a.progress != b.progress) return a.progress < b.progress;
    if (a.mtime != b.mtime) return a.mtime < b.mtime;
    return natural_less(a.name, b.name);
}

void sync_folder(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    RENSA_CHECK(fd >= 0, IOError, "snapshot: cannot open the folder ", dir, " to sync it: ", std::strerror(errno));
    const int rc = ::fsync(fd);
    ::close(fd);
    RENSA_CHECK(rc == 0, IOError, "snapshot: cannot sync the folder ", dir, ": ", std::strerror(errno));
}

detail::SnapshotFields fields_of(const Trainer& trainer) {
    const Updater& updater = trainer.updater();
    return {.iteration = updater.iteration(),
            .epoch = updater.epoch(),
            .epoch_detail = updater.epoch_detail(),
            .elapsed_time = trainer.elapsed_time()};
}

// Gives load_npz a serialize() over a SnapshotTarget.
struct TargetAdapter {
    const SnapshotTarget& target;
    void serialize(const serializers::Serializer& s) const { target(s); }
};

}  // namespace

namespace detail {

std::string format_snapshot_filename(const std::string& tmpl, const SnapshotFields& fields) {
    std::string out;
    for (const Piece& piece : parse_template(tmpl)) {
        out += piece.literal;
        if (piece.field == ".updater.iteration") out += format_value(piece, fields.iteration, 0.0, tmpl);
        if (piece.field == ".updater.epoch") out += format_value(piece, fields.epoch, 0.0, tmpl);
        if (piece.field == ".updater.epoch_detail") out += format_value(piece, 0, fields.epoch_detail, tmpl);
        if (piece.field == ".elapsed_time") out += format_value(piece, 0, fields.elapsed_time, tmpl);
    }
    return out;
}

std::vector<fs::path> find_snapshot_files(const std::string& tmpl, const fs::path& dir) {
    const std::vector<Piece> pieces = parse_template(tmpl);
    const std::regex re{name_pattern(pieces)};
    const bool skip_tmp = tmpl.rfind("tmp", 0) != 0;
    std::vector<FoundFile> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator{dir, ec}) {
        const std::string name = entry.path().filename().string();
        std::smatch match;
        if ((skip_tmp && name.rfind("tmp", 0) == 0) || !std::regex_match(name, match, re)) continue;
        std::error_code stat_ec;
        if (!entry.is_regular_file(stat_ec)) continue;
        const auto mtime = entry.last_write_time(stat_ec);
        if (!stat_ec)
            found.push_back({progress_of(pieces, match), mtime, name});  // a file removed meanwhile is skipped
    }
    std::sort(found.begin(), found.end(), older);
    std::vector<fs::path> paths;
    for (const FoundFile& file : found) paths.push_back(dir / file.name);
    return paths;
}

std::vector<std::string> remove_stale_temporaries(const std::string& tmpl, const fs::path& dir, bool literal) {
    const std::regex re{"tmp" + (literal ? regex_escape(tmpl) : name_pattern(parse_template(tmpl))) + kTemporarySuffix};
    std::vector<fs::path> stale;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator{dir, ec}) {
        const std::string name = entry.path().filename().string();
        std::error_code stat_ec;
        if (name.rfind("tmp", 0) == 0 && std::regex_match(name, re) && entry.is_regular_file(stat_ec))
            stale.push_back(entry.path());
    }
    std::vector<std::string> removed;
    for (const fs::path& path : stale) {
        std::error_code remove_ec;
        if (fs::remove(path, remove_ec)) removed.push_back(path.filename().string());
    }
    return removed;
}

void write_snapshot(const SnapshotTarget& save, const fs::path& dir, const std::string& filename, bool compression) {
    const auto saver = std::make_shared<serializers::NpzSaver>();
    save(serializers::Serializer{saver});  // a throwing target leaves no file at all
    std::error_code ec;
    fs::create_directories(dir, ec);
    RENSA_CHECK(!ec, IOError, "snapshot: cannot create the folder ", dir, ": ", ec.message());
    std::string tmp = (dir / ("tmp" + filename + "XXXXXX")).string();
    const int fd = ::mkstemp(tmp.data());
    RENSA_CHECK(fd >= 0, IOError, "snapshot: cannot create a temporary file in ", dir, ": ", std::strerror(errno));
    ::close(fd);
    const fs::path target = dir / filename;
    try {
        saver->write(tmp, {.compression = compression});  // written beside tmp, fsynced, renamed onto tmp
        RENSA_CHECK(::rename(tmp.c_str(), target.c_str()) == 0, IOError, "snapshot: cannot rename '", tmp, "' to ",
                    target, ": ", std::strerror(errno));
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
    sync_folder(dir);
}

}  // namespace detail

Snapshot::Snapshot(SnapshotOptions options, SnapshotTarget target)
    : options_{std::move(options)}, target_{std::move(target)} {
    // Formatting once checks the fields and specs now rather than at the first snapshot.
    if (!options_.filename_fn) (void)detail::format_snapshot_filename(options_.filename, {});
}

std::string Snapshot::filename(const Trainer& trainer) const {
    if (!options_.filename_fn) return detail::format_snapshot_filename(options_.filename, fields_of(trainer));
    std::string name = options_.filename_fn(trainer);
    RENSA_CHECK(!name.empty() && name.find('/') == std::string::npos, ValueError, "snapshot: filename_fn returned '",
                name, "'; expected a non-empty file name without '/'");
    return name;
}

void Snapshot::operator()(Trainer& trainer) {
    if (!options_.condition || options_.condition()) make_snapshot(trainer);
}

void Snapshot::make_snapshot(Trainer& trainer) {
    const SnapshotTarget save =
        target_ ? target_ : [&trainer](const serializers::Serializer& s) { trainer.serialize(s); };
    const std::string name = filename(trainer);
    // See Note [Snapshot writes]: leftovers of this writer's interrupted writes.
    if (options_.filename_fn) {
        (void)detail::remove_stale_temporaries(name, trainer.out(), /*literal=*/true);
    } else {
        (void)detail::remove_stale_temporaries(options_.filename, trainer.out());
    }
    detail::write_snapshot(save, trainer.out(), name, options_.compression);
    if (options_.n_retains <= 0 || options_.filename_fn) return;
    const std::vector<fs::path> files = detail::find_snapshot_files(options_.filename, trainer.out());
    const auto stale = static_cast<int64_t>(files.size()) - options_.n_retains;
    for (int64_t i = 0; i < stale; ++i) {
        std::error_code ec;
        fs::remove(files[static_cast<size_t>(i)], ec);  // already gone is fine
    }
}

void Snapshot::load(Trainer& trainer, const fs::path& file) const {
    if (target_) {
        TargetAdapter adapter{target_};
        serializers::load_npz(file.string(), adapter);
    } else {
        serializers::load_npz(file.string(), trainer);
    }
}

void Snapshot::initialize(Trainer& trainer) {
    loaded_.clear();
    if (!options_.autoload || options_.filename_fn) return;
    const std::vector<fs::path> files = detail::find_snapshot_files(options_.filename, trainer.out());
    // See Note [Autoload order]: newest first; a failed load changed nothing.
    std::vector<std::string> failures;
    for (auto it = files.rbegin(); it != files.rend() && loaded_.empty(); ++it) {
        try {
            load(trainer, *it);
            loaded_ = *it;
        } catch (const Error& e) {
            failures.push_back("'" + it->string() + "': " + e.what());
        }
    }
    if (failures.empty()) return;
    if (loaded_.empty()) {
        std::ostringstream os;
        for (size_t i = 0; i < failures.size(); ++i) os << (i ? "; " : "") << failures[i];
        RENSA_THROW(IOError, "snapshot: autoload: none of the ", files.size(), " snapshots in '", trainer.out(),
                    "' loads: ", os.str());
    }
    for (const std::string& failure : failures) std::cerr << "snapshot: autoload skipped " << failure << '\n';
    std::cerr << "snapshot: autoload loaded '" << loaded_.string() << "', the newest snapshot that loads\n";
}

void Snapshot::on_error(Trainer& trainer, const std::exception& error) {
    (void)error;
    if (!options_.snapshot_on_error) return;
    try {
        make_snapshot(trainer);
    } catch (const std::exception& e) {
        std::cerr << "snapshot: snapshot_on_error failed: " << e.what() << '\n';
    }
}

std::shared_ptr<Snapshot> snapshot(SnapshotOptions options) { return std::make_shared<Snapshot>(std::move(options)); }

}  // namespace rensa::training::extensions
