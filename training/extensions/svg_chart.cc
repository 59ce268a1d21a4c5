#include "training/extensions/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/error.h"

namespace rensa::training::extensions {

namespace {

// matplotlib's default colour cycle (tab10).
constexpr std::array<const char*, 10> kColors = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr double kCharWidth = 7.0;  // rough width of a 12px sans-serif character
constexpr double kMarkerSize = 3.5;

struct Range {
    double lo, hi;
};

// The plot area in pixels and the data ranges it shows.
struct Frame {
    double left, top, width, height;
    Range x, y;
    double px(double v) const { return left + (v - x.lo) / (x.hi - x.lo) * width; }
    double py(double v) const { return top + height - (v - y.lo) / (y.hi - y.lo) * height; }
};

bool finite_point(const std::pair<double, double>& p) { return std::isfinite(p.first) && std::isfinite(p.second); }

std::string escape(const std::string& text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

// A pixel coordinate.
std::string num(double v) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(2) << v;
    return os.str();
}

// A tick value, rounded to its step so that 0.1 + 0.2 prints as 0.3.
std::string tick_label(double v, double step) {
    v = std::round(v / step) * step;
    if (std::abs(v) < step * 1e-9) v = 0.0;
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
}

// The finite data range of one axis, widened by 5% on each side (matplotlib's margins);
// a single value gets a small range around it, no data [0, 1].
Range data_range(const SvgChart& chart, bool x_axis) {
    double lo = INFINITY, hi = -INFINITY;
    for (const SvgSeries& s : chart.series) {
        for (const auto& p : s.points) {
            if (!finite_point(p)) continue;
            const double v = x_axis ? p.first : p.second;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (lo > hi) return {0.0, 1.0};
    if (lo == hi) {
        const double d = lo != 0.0 ? std::abs(lo) * 0.05 : 0.5;
        return {lo - d, hi + d};
    }
    const double margin = (hi - lo) * 0.05;
    return {lo - margin, hi + margin};
}

double legend_width(const SvgChart& chart) {
    size_t longest = 0;
    for (const SvgSeries& s : chart.series) longest = std::max(longest, s.label.size());
    return chart.series.empty() ? 0.0 : 50.0 + kCharWidth * static_cast<double>(longest);
}

// One marker at (x, y) as path data ("." and "o" are filled / hollow circles).
std::string marker_path(const std::string& marker, double x, double y) {
    const double r = marker == "." ? 1.5 : kMarkerSize;
    std::ostringstream os;
    if (marker == "x") {
        os << "M" << num(x - r) << " " << num(y - r) << "L" << num(x + r) << " " << num(y + r) << "M" << num(x - r)
           << " " << num(y + r) << "L" << num(x + r) << " " << num(y - r);
    } else if (marker == "+") {
        os << "M" << num(x - r) << " " << num(y) << "H" << num(x + r) << "M" << num(x) << " " << num(y - r) << "V"
           << num(y + r);
    } else if (marker == "o" || marker == ".") {
        os << "M" << num(x - r) << " " << num(y) << "a" << num(r) << " " << num(r) << " 0 1 0 " << num(2 * r) << " 0a"
           << num(r) << " " << num(r) << " 0 1 0 " << num(-2 * r) << " 0Z";
    } else if (marker == "s") {
        os << "M" << num(x - r) << " " << num(y - r) << "h" << num(2 * r) << "v" << num(2 * r) << "h" << num(-2 * r)
           << "Z";
    } else if (marker == "^") {
        os << "M" << num(x) << " " << num(y - r) << "L" << num(x + r) << " " << num(y + r) << "L" << num(x - r) << " "
           << num(y + r) << "Z";
    }
    return os.str();
}

std::string marker_style(const std::string& marker, const char* color) {
    const bool filled = marker == "." || marker == "s" || marker == "^";
    return std::string{"fill=\""} + (filled ? color : "none") + "\" stroke=\"" + color + "\" stroke-width=\"1.2\"";
}

void draw_axes(std::ostringstream& os, const Frame& f, bool grid) {
    const double step_x_count = std::max(2.0, std::min(10.0, f.width / 55.0));
    const std::vector<double> xticks = nice_ticks(f.x.lo, f.x.hi, static_cast<int>(step_x_count));
    const std::vector<double> yticks = nice_ticks(f.y.lo, f.y.hi, 8);
    const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1.0;
    const double ystep = yticks.size() > 1 ? yticks[1] - yticks[0] : 1.0;
    const double bottom = f.top + f.height;
    if (grid) {
        os << "<g class=\"grid\" stroke=\"#b0b0b0\" stroke-width=\"0.8\" stroke-opacity=\"0.6\">\n";
        for (double t : xticks)
            os << "<line x1=\"" << num(f.px(t)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(f.px(t)) << "\" y2=\""
               << num(bottom) << "\"/>\n";
        for (double t : yticks)
            os << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.py(t)) << "\" x2=\"" << num(f.left + f.width)
               << "\" y2=\"" << num(f.py(t)) << "\"/>\n";
        os << "</g>\n";
    }
    os << "<g class=\"axes\" stroke=\"#000000\" stroke-width=\"1\">\n";
    os << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.width) << "\" height=\""
       << num(f.height) << "\" fill=\"none\"/>\n";
    for (double t : xticks)
        os << "<line x1=\"" << num(f.px(t)) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(f.px(t)) << "\" y2=\""
           << num(bottom + 4) << "\"/>\n";
    for (double t : yticks)
        os << "<line x1=\"" << num(f.left - 4) << "\" y1=\"" << num(f.py(t)) << "\" x2=\"" << num(f.left) << "\" y2=\""
           << num(f.py(t)) << "\"/>\n";
    os << "</g>\n<g class=\"tick-labels\" fill=\"#000000\">\n";
    for (double t : xticks) {
        os << "<text x=\"" << num(f.px(t)) << "\" y=\"" << num(bottom + 18) << "\" text-anchor=\"middle\">"
           << tick_label(t, xstep) << "</text>\n";
    }
    for (double t : yticks) {
        os << "<text x=\"" << num(f.left - 7) << "\" y=\"" << num(f.py(t) + 4) << "\" text-anchor=\"end\">"
           << tick_label(t, ystep) << "</text>\n";
    }
    os << "</g>\n";
}

void draw_titles(std::ostringstream& os, const Frame& f, const SvgChart& chart) {
    const double cx = f.left + f.width / 2;
    if (!chart.xlabel.empty()) {
        os << "<text class=\"xlabel\" x=\"" << num(cx) << "\" y=\"" << num(f.top + f.height + 38)
           << "\" text-anchor=\"middle\">" << escape(chart.xlabel) << "</text>\n";
    }
    if (!chart.ylabel.empty()) {
        const double cy = f.top + f.height / 2;
        os << "<text class=\"ylabel\" x=\"16\" y=\"" << num(cy)
           << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " << num(cy) << ")\">" << escape(chart.ylabel)
           << "</text>\n";
    }
    if (!chart.title.empty()) {
        os << "<text class=\"title\" x=\"" << num(cx) << "\" y=\"" << num(f.top - 8)
           << "\" text-anchor=\"middle\" font-size=\"14\">" << escape(chart.title) << "</text>\n";
    }
}

void draw_series(std::ostringstream& os, const Frame& f, const SvgSeries& s, const char* color,
                 const std::string& marker) {
    os << "<polyline class=\"series\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\" points=\"";
    std::string markers;
    const char* sep = "";
    for (const auto& p : s.points) {
        if (!finite_point(p)) continue;
        os << sep << num(f.px(p.first)) << "," << num(f.py(p.second));
        sep = " ";
        if (!marker.empty()) markers += marker_path(marker, f.px(p.first), f.py(p.second));
    }
    os << "\"><title>" << escape(s.label) << "</title></polyline>\n";
    if (!markers.empty())
        os << "<path class=\"markers\" " << marker_style(marker, color) << " d=\"" << markers << "\"/>\n";
}

void draw_legend(std::ostringstream& os, const Frame& f, const SvgChart& chart) {
    if (chart.series.empty()) return;
    const double x = f.left + f.width + 15;
    const double h = 20.0 * static_cast<double>(chart.series.size()) + 8;
    os << "<g class=\"legend\">\n<rect x=\"" << num(x) << "\" y=\"" << num(f.top) << "\" width=\""
       << num(legend_width(chart) - 10) << "\" height=\"" << num(h)
       << "\" fill=\"#ffffff\" stroke=\"#cccccc\" rx=\"3\"/>\n";
    for (size_t i = 0; i < chart.series.size(); ++i) {
        const char* color = kColors[i % kColors.size()];
        const double y = f.top + 16 + 20.0 * static_cast<double>(i);
        os << "<line x1=\"" << num(x + 6) << "\" y1=\"" << num(y - 4) << "\" x2=\"" << num(x + 30) << "\" y2=\""
           << num(y - 4) << "\" stroke=\"" << color << "\" stroke-width=\"1.5\"/>\n";
        if (!chart.marker.empty()) {
            os << "<path " << marker_style(chart.marker, color) << " d=\"" << marker_path(chart.marker, x + 18, y - 4)
               << "\"/>\n";
        }
        os << "<text x=\"" << num(x + 36) << "\" y=\"" << num(y) << "\">" << escape(chart.series[i].label)
           << "</text>\n";
    }
    os << "</g>\n";
}

}  // namespace

bool is_svg_marker(const std::string& marker) {
    return marker.empty() || marker == "x" || marker == "+" || marker == "o" || marker == "." || marker == "s" ||
           marker == "^";
}

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
    RENSA_CHECK(std::isfinite(lo) && std::isfinite(hi) && lo < hi, ValueError, "nice_ticks: bad range [", lo, ", ", hi,
                "]");
    const double raw = (hi - lo) / std::max(1, max_ticks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude * 10;
    for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (magnitude * m >= raw) {
            step = magnitude * m;
            break;
        }
    }
    std::vector<double> ticks;
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) ticks.push_back(k * step);
    return ticks;
}

std::string render_svg(const SvgChart& chart) {
    RENSA_CHECK(is_svg_marker(chart.marker), ValueError, "render_svg: unknown marker '", chart.marker,
                "' (use one of \"\", x, +, o, ., s, ^)");
    RENSA_CHECK(chart.width >= 100 && chart.height >= 100, ValueError, "render_svg: size ", chart.width, "x",
                chart.height, " is under 100x100");
    const double left = chart.ylabel.empty() ? 60.0 : 75.0, top = chart.title.empty() ? 15.0 : 30.0;
    const double legend = legend_width(chart);
    const double width = std::max(static_cast<double>(chart.width), left + 200.0 + legend + 15);
    const Frame frame{left,
                      top,
                      width - left - legend - 15,
                      chart.height - top - 55.0,
                      data_range(chart, true),
                      data_range(chart, false)};

    std::ostringstream os;
    os << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << num(width) << "\" height=\""
       << chart.height << "\" viewBox=\"0 0 " << num(width) << " " << chart.height
       << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n";
    os << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    draw_axes(os, frame, chart.grid);
    draw_titles(os, frame, chart);
    for (size_t i = 0; i < chart.series.size(); ++i) {
        draw_series(os, frame, chart.series[i], kColors[i % kColors.size()], chart.marker);
    }
    draw_legend(os, frame, chart);
    os << "</svg>\n";
    return os.str();
}

}  // namespace rensa::training::extensions
