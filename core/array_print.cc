// Array::repr: numpy 2's array repr with its default print options (linewidth 75,
// threshold 1000, edgeitems 3, precision 8, floatmode 'maxprec'), following the steps of
// numpy/_core/arrayprint.py: choose one format for every shown element, then lay the
// rows out with numpy's wrapping and hanging indents.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/array.h"
#include "core/half.h"

namespace rensa {
namespace {

constexpr int kLineWidth = 75;
constexpr int64_t kThreshold = 1000;  // more elements than this are summarised with "..."
constexpr int64_t kEdgeItems = 3;
constexpr int kPrecision = 8;  // most fraction digits of a float

// ---- Float digits ---------------------------------------------------------------------

// v rounded to `dtype`: a decimal string is exact enough when it reads back as the same value.
double round_to_dtype(double v, Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
            return static_cast<float>(Half(static_cast<float>(v)));
        case Dtype::kBFloat16:
            return static_cast<float>(BFloat16(static_cast<float>(v)));
        case Dtype::kFloat32:
            return static_cast<float>(v);
        case Dtype::kFloat64:
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            break;
    }
    return v;
}

// A finite value as sign, digits d0 d1 d2 ... (no trailing zeros past d0) and exponent:
// value = d0.d1d2... x 10^exp.
struct Decimal {
    bool negative = false;
    std::string digits;
    int exp = 0;
};

Decimal parse_scientific(const char* text) {  // "-1.2500e+03" as printed by %e
    Decimal d;
    const char* p = text;
    if (*p == '-') {
        d.negative = true;
        ++p;
    }
    for (; *p != 'e'; ++p) {
        if (*p != '.') d.digits += *p;
    }
    d.exp = std::atoi(p + 1);
    while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
    return d;
}

// The shortest digits that read back as v in its dtype (numpy's unique=True), rounded to
// at most `max_fraction` digits after d0.
Decimal shortest_scientific(double v, Dtype dtype, int max_fraction) {
    char buf[64];
    for (int p = 0; p < max_fraction; ++p) {
        std::snprintf(buf, sizeof(buf), "%.*e", p, v);
        if (round_to_dtype(std::strtod(buf, nullptr), dtype) == v) return parse_scientific(buf);
    }
    std::snprintf(buf, sizeof(buf), "%.*e", max_fraction, v);
    return parse_scientific(buf);
}

// Positional digits: integer part (with sign) and fraction part without trailing zeros.
struct Positional {
    std::string int_part, frac_part;
};

Positional positional(double v, Dtype dtype) {
    const Decimal d = shortest_scientific(v, dtype, 17);
    const int frac_digits = std::max(0, static_cast<int>(d.digits.size()) - 1 - d.exp);
    Positional out;
    if (frac_digits > kPrecision) {  // round the exact value at the cutoff, like Dragon4
        char buf[400];
        std::snprintf(buf, sizeof(buf), "%.*f", kPrecision, v);
        const std::string s = buf;
        const size_t dot = s.find('.');
        out.int_part = s.substr(0, dot);
        out.frac_part = s.substr(dot + 1);
        while (!out.frac_part.empty() && out.frac_part.back() == '0') out.frac_part.pop_back();
        return out;
    }
    if (d.exp >= 0) {
        std::string digits = d.digits;
        if (static_cast<int>(digits.size()) < d.exp + 1) digits.resize(static_cast<size_t>(d.exp + 1), '0');
        out.int_part = digits.substr(0, static_cast<size_t>(d.exp + 1));
        out.frac_part = digits.substr(static_cast<size_t>(d.exp + 1));
    } else {
        out.int_part = "0";
        out.frac_part = std::string(static_cast<size_t>(-d.exp - 1), '0') + d.digits;
    }
    if (d.negative) out.int_part.insert(0, "-");
    return out;
}

// ---- Element formats ------------------------------------------------------------------

// numpy's FloatingFormat: positional, or scientific when the magnitudes span too much.
struct FloatFormat {
    Dtype dtype = Dtype::kFloat64;
    bool scientific = false;
    int pad_left = 0, pad_right = 0;
    int precision = 0;  // scientific: fraction digits of every mantissa
    int exp_size = 0;   // scientific: digits of every exponent
};

int exponent_digits(int exp) { return std::max(2, static_cast<int>(std::to_string(std::abs(exp)).size())); }

bool wants_scientific(const std::vector<double>& finite) {
    double max_abs = 0.0, min_abs = INFINITY;
    for (double v : finite) {
        if (v == 0.0) continue;
        max_abs = std::max(max_abs, std::abs(v));
        min_abs = std::min(min_abs, std::abs(v));
    }
    if (max_abs == 0.0) return false;
    return max_abs >= 1e8 || min_abs < 1e-4 || max_abs / min_abs > 1e3;
}

FloatFormat make_float_format(const std::vector<double>& shown, Dtype dtype) {
    FloatFormat f{.dtype = dtype};
    std::vector<double> finite;
    bool nonfinite = false, neg_inf = false;
    for (double v : shown) {
        if (std::isfinite(v)) finite.push_back(v);
        nonfinite = nonfinite || !std::isfinite(v);
        neg_inf = neg_inf || (std::isinf(v) && v < 0);
    }
    f.scientific = wants_scientific(finite);
    for (double v : finite) {
        if (f.scientific) {
            const Decimal d = shortest_scientific(v, dtype, kPrecision);
            f.pad_left = std::max(f.pad_left, d.negative ? 2 : 1);
            f.precision = std::max(f.precision, static_cast<int>(d.digits.size()) - 1);
            f.exp_size = std::max(f.exp_size, exponent_digits(d.exp));
        } else {
            const Positional p = positional(v, dtype);
            f.pad_left = std::max(f.pad_left, static_cast<int>(p.int_part.size()));
            f.pad_right = std::max(f.pad_right, static_cast<int>(p.frac_part.size()));
        }
    }
    if (f.scientific) f.pad_right = f.exp_size + 2 + f.precision;
    if (nonfinite) {  // "nan", "inf" and "-inf" must fit the column too
        const int offset = f.pad_right + 1;
        f.pad_left = std::max({f.pad_left, 3 - offset, 3 + (neg_inf ? 1 : 0) - offset});
    }
    return f;
}

std::string pad_left(const std::string& s, int width) {
    return std::string(static_cast<size_t>(std::max(0, width - static_cast<int>(s.size()))), ' ') + s;
}

std::string format_float(double v, const FloatFormat& f) {
    if (!std::isfinite(v)) {
        const std::string word = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
        return pad_left(word, f.pad_left + f.pad_right + 1);
    }
    if (f.scientific) {
        const Decimal d = shortest_scientific(v, f.dtype, f.precision);
        std::string mantissa = (d.negative ? "-" : "") + d.digits.substr(0, 1);
        std::string frac = d.digits.substr(1);
        frac.resize(static_cast<size_t>(f.precision), '0');
        std::string exp = std::to_string(std::abs(d.exp));
        exp.insert(0, static_cast<size_t>(std::max(0, f.exp_size - static_cast<int>(exp.size()))), '0');
        return pad_left(mantissa, f.pad_left) + "." + frac + "e" + (d.exp < 0 ? "-" : "+") + exp;
    }
    const Positional p = positional(v, f.dtype);
    std::string frac = p.frac_part;
    frac.resize(static_cast<size_t>(std::max(f.pad_right, static_cast<int>(frac.size()))), ' ');
    return pad_left(p.int_part, f.pad_left) + "." + frac;
}

// Formats element `flat` (row-major) of the host copy.
using ElementFormat = std::function<std::string(int64_t)>;

// ---- Layout ---------------------------------------------------------------------------

// Axes whose middle is elided with "..." (numpy summarises only arrays of more than 1000).
using Summarised = std::array<bool, kMaxNdim>;

Summarised summarised_axes(const Array& a) {
    Summarised out{};
    for (int d = 0; d < a.ndim(); ++d) out[d] = a.size() > kThreshold && a.shape()[d] > 2 * kEdgeItems;
    return out;
}

// The elements that will be shown (numpy's _leading_trailing): each summarised axis keeps its
// first and last kEdgeItems. Built on the array's device, so printing never copies a large array.
Array shown_part(const Array& a, const Summarised& summarised) {
    Shape shape = a.shape();
    int count = 0;
    for (int d = 0; d < a.ndim(); ++d) {
        if (summarised[d]) {
            shape[d] = 2 * kEdgeItems;
            ++count;
        }
    }
    if (count == 0) return a;
    const Array out = Array::empty(shape, a.dtype(), a.device());
    for (int corner = 0; corner < (1 << count); ++corner) {  // each leading/trailing combination
        std::vector<Index> src, dst;
        for (int d = 0, bit = 0; d < a.ndim(); ++d) {
            const bool trailing = summarised[d] && ((corner >> bit++) & 1) != 0;
            const Slice leading{0, kEdgeItems};
            src.push_back(!summarised[d] ? Slice{} : trailing ? Slice{-kEdgeItems, std::nullopt} : leading);
            dst.push_back(!summarised[d] ? Slice{} : trailing ? Slice{kEdgeItems, std::nullopt} : leading);
        }
        out.index(dst).assign(a.index(src));
    }
    return out;
}

// numpy's _formatArray over the shown elements (row-major in `shape`): rows wrap at the
// width, nested rows hang under their bracket, "..." stands in for each elided middle.
class Layout {
public:
    Layout(const Shape& shape, const Summarised& summarised) : shape_{shape}, summarised_{summarised} {
        strides_.resize(shape.size());
        int64_t stride = 1;
        for (int d = shape.size() - 1; d >= 0; --d) {
            strides_[d] = stride;
            stride *= shape[d];
        }
    }

    std::string format(const ElementFormat& element, const std::string& hanging, int width) const {
        return recurse(element, 0, 0, hanging, width);
    }

private:
    static void extend_line(std::string& s, std::string& line, const std::string& word, int width,
                            const std::string& prefix) {
        // Wrap when the word would pass the width, unless the line holds nothing yet.
        if (line.size() + word.size() > static_cast<size_t>(width) && line.size() > prefix.size()) {
            s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
            line = prefix;
        }
        line += word;
    }

    std::string recurse(const ElementFormat& element, int axis, int64_t flat, const std::string& hanging,
                        int width) const {
        if (axis == shape_.size()) return element(flat);
        std::vector<std::string> items;
        for (int64_t i = 0; i < shape_[axis]; ++i) {
            if (summarised_[axis] && i == kEdgeItems) items.emplace_back("...");
            items.push_back(recurse(element, axis + 1, flat + i * strides_[axis], hanging + " ", width - 1));
        }
        std::string s;
        if (axis == shape_.size() - 1) {
            std::string line = hanging;
            for (size_t i = 0; i < items.size(); ++i) {
                extend_line(s, line, items[i], width - 1, hanging);  // room for the "," or "]"
                if (i + 1 < items.size()) line += ", ";
            }
            s += line;
        } else {
            const std::string separator = "," + std::string(static_cast<size_t>(shape_.size() - axis - 1), '\n');
            for (size_t i = 0; i < items.size(); ++i) s += hanging + items[i] + (i + 1 < items.size() ? separator : "");
        }
        return "[" + s.substr(hanging.size()) + "]";
    }

    Shape shape_;
    Shape strides_;  // in elements
    Summarised summarised_;
};

// ---- Elements -------------------------------------------------------------------------

// Reads the shown elements to the host and builds one format for all of them.
ElementFormat make_element_format(const Array& shown) {
    const Array host = shown.to_device(Device::native());
    if (is_float(shown.dtype())) {
        auto values = std::make_shared<std::vector<double>>(host.to_vector<double>());
        const FloatFormat f = make_float_format(*values, shown.dtype());
        return [values, f](int64_t i) { return format_float((*values)[static_cast<size_t>(i)], f); };
    }
    if (shown.dtype() == Dtype::kBool) {
        auto values = std::make_shared<std::vector<bool>>(host.to_vector<bool>());
        const std::string true_word = shown.ndim() > 0 ? " True" : "True";  // aligns with "False"
        return [values, true_word](int64_t i) { return (*values)[static_cast<size_t>(i)] ? true_word : "False"; };
    }
    auto values = std::make_shared<std::vector<int64_t>>(host.to_vector<int64_t>());
    int width = 0;
    for (int64_t v : *values) width = std::max(width, static_cast<int>(std::to_string(v).size()));
    return [values, width](int64_t i) { return pad_left(std::to_string((*values)[static_cast<size_t>(i)]), width); };
}

std::string format_body(const Array& a, const std::string& prefix) {
    if (a.size() == 0) return "[]";
    const Summarised summarised = summarised_axes(a);
    const Array shown = shown_part(a, summarised);
    const Layout layout(shown.shape(), summarised);
    // Continuation lines start under the first element: one column for "[" past the prefix.
    return layout.format(make_element_format(shown), std::string(prefix.size() + 1, ' '), kLineWidth - 1);
}

// numpy omits the dtype it would infer anyway (float64, int64, bool), unless the array is empty.
std::vector<std::string> extras(const Array& a) {
    std::vector<std::string> out;
    std::ostringstream shape;
    shape << "shape=" << a.shape();
    if ((a.size() == 0 && a.ndim() != 1) || a.size() > kThreshold) out.push_back(shape.str());
    const bool implied = a.dtype() == Dtype::kFloat64 || a.dtype() == Dtype::kInt64 || a.dtype() == Dtype::kBool;
    if (!implied || a.size() == 0) out.push_back("dtype=" + std::string(dtype_name(a.dtype())));
    if (a.device().kind != DeviceKind::kNative) out.push_back("device=" + a.device().str());
    return out;
}

}  // namespace

std::string Array::repr() const {
    if (!defined()) return "array(undefined)";
    const std::string prefix = "array(";
    const std::string body = format_body(*this, prefix);
    const std::vector<std::string> more = extras(*this);
    if (more.empty()) return prefix + body + ")";
    std::string tail;
    for (const std::string& e : more) tail += (tail.empty() ? "" : ", ") + e;
    tail += ")";
    const std::string head = prefix + body + ",";
    const size_t last_line = head.size() - (head.rfind('\n') == std::string::npos ? 0 : head.rfind('\n') + 1);
    const bool wrap = last_line + tail.size() + 1 > static_cast<size_t>(kLineWidth);
    return head + (wrap ? "\n" + std::string(prefix.size(), ' ') : " ") + tail;
}

std::ostream& operator<<(std::ostream& os, const Array& a) { return os << a.repr(); }

}  // namespace rensa
