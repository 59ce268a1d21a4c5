#pragma once
// A standalone SVG line chart (what PlotReport writes instead of matplotlib's PNG): axes
// with "nice" tick labels, an optional grid, one polyline per series in matplotlib's
// default colours, optional markers, and a legend to the right of the plot.

#include <string>
#include <utility>
#include <vector>

namespace rensa::training::extensions {

struct SvgSeries {
    std::string label;
    // (x, y) points in order; points with a NaN or infinite coordinate are left out.
    std::vector<std::pair<double, double>> points;
};

struct SvgChart {
    std::vector<SvgSeries> series;
    std::string xlabel = "";
    std::string ylabel = "";
    std::string title = "";
    bool grid = true;
    // "" (none), "x", "+", "o", ".", "s" (square) or "^" (triangle); matplotlib's names.
    std::string marker = "x";
    // The whole picture in pixels; the plot area is what is left beside the legend (the
    // width grows when the legend would leave the plot narrower than 200).
    int width = 800;
    int height = 480;
};

// True for the marker names SvgChart accepts.
bool is_svg_marker(const std::string& marker);

// The chart as an SVG document (starts with "<svg", UTF-8, text escaped). Series without
// a finite point still get a legend entry and an empty polyline. ValueError for an unknown
// marker or a size under 100x100.
[[nodiscard]] std::string render_svg(const SvgChart& chart);

// About `max_ticks` round values (steps of 1, 2, 2.5 or 5 times a power of ten) covering
// [lo, hi] from the inside; lo < hi and both finite.
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int max_ticks = 8);

}  // namespace rensa::training::extensions
