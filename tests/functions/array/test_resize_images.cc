// resize_images: bilinear (align_corners=True) against a float64 loop, gradients, errors.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Chainer's interpolation, pixel by pixel.
Array resize_reference(const Array& x, int64_t out_h, int64_t out_w, const F::ResizeImagesOptions& options = {}) {
    const Shape& s = x.shape();
    const int64_t h = s[2], w = s[3];
    const std::vector<double> v = to_doubles(x);
    auto at = [&](int64_t nc, int64_t i, int64_t j) { return v[static_cast<size_t>((nc * h + i) * w + j)]; };
    auto source = [&](int64_t o, int64_t out, int64_t in) {
        const double od = static_cast<double>(o), outd = static_cast<double>(out), ind = static_cast<double>(in);
        if (options.mode == "nearest") return std::min(std::floor(od * ind / outd), ind - 1);
        if (!options.align_corners) return std::max((od + 0.5) * ind / outd - 0.5, 0.0);
        return out > 1 ? od * (ind - 1) / (outd - 1) : 0.0;
    };
    std::vector<double> y;
    for (int64_t nc = 0; nc < s[0] * s[1]; ++nc) {
        for (int64_t oi = 0; oi < out_h; ++oi) {
            for (int64_t oj = 0; oj < out_w; ++oj) {
                const double u = source(oi, out_h, h), t = source(oj, out_w, w);
                const auto i0 = std::min(static_cast<int64_t>(u), h - 1), j0 = std::min(static_cast<int64_t>(t), w - 1);
                const int64_t i1 = std::min(i0 + 1, h - 1), j1 = std::min(j0 + 1, w - 1);
                const bool nearest = options.mode == "nearest";
                const double du = nearest ? 0 : u - static_cast<double>(i0);
                const double dt = nearest ? 0 : t - static_cast<double>(j0);
                y.push_back(at(nc, i0, j0) * (1 - du) * (1 - dt) + at(nc, i0, j1) * (1 - du) * dt +
                            at(nc, i1, j0) * du * (1 - dt) + at(nc, i1, j1) * du * dt);
            }
        }
    }
    return f64(y, {s[0], s[1], out_h, out_w});
}

}  // namespace

TEST_CASE("resize_images", "[functions][array]") {
    struct Case {
        Shape x;
        int64_t out_h, out_w;
    };
    for (const Case& c :
         {Case{{1, 2, 3, 4}, 5, 3}, Case{{2, 1, 2, 2}, 2, 2}, Case{{1, 1, 3, 1}, 1, 4}, Case{{0, 1, 2, 2}, 3, 3}}) {
        check_function({
            .name = "resize_images",
            .inputs = {{.shape = c.x}},
            .func =
                [c](const Vars& xs) {
                    return Vars{F::resize_images(xs[0], {c.out_h, c.out_w})};
                },
            .reference = [c](const Arrays& xs) { return Arrays{resize_reference(xs[0], c.out_h, c.out_w)}; },
            .backward = c.x[0] > 0,
            .double_backward = c.x[0] > 0,
        });
    }
}

TEST_CASE("resize_images: align_corners=False and nearest", "[functions][array]") {
    for (const F::ResizeImagesOptions options :
         {F::ResizeImagesOptions{.align_corners = false}, F::ResizeImagesOptions{.mode = "nearest"}}) {
        for (const auto& out : {std::pair<int64_t, int64_t>{5, 2}, std::pair<int64_t, int64_t>{2, 7}}) {
            const int64_t out_h = out.first, out_w = out.second;
            check_function({
                .name = "resize_images options",
                .inputs = {{.shape = {1, 2, 3, 4}}},
                .func =
                    [=](const Vars& xs) {
                        return Vars{F::resize_images(xs[0], {out_h, out_w}, options)};
                    },
                .reference = [=](const Arrays& xs) { return Arrays{resize_reference(xs[0], out_h, out_w, options)}; },
            });
        }
    }
}

TEST_CASE("resize_images: errors", "[functions][array]") {
    CHECK_THROWS_AS(F::resize_images(Variable(ops::zeros({2, 3, 4})), {2, 2}), DimensionError);
    CHECK_THROWS_AS(F::resize_images(Variable(ops::zeros({1, 1, 2, 2}, Dtype::kInt32)), {2, 2}), DtypeError);
    CHECK_THROWS_WITH(F::resize_images(Variable(ops::zeros({1, 1, 2, 2})), {0, 2}), Catch::Contains("(0, 2)"));
    CHECK_THROWS_AS(F::resize_images(Variable(ops::zeros({1, 1, 0, 2})), {2, 2}), DimensionError);
    CHECK_THROWS_WITH(F::resize_images(Variable(ops::zeros({1, 1, 2, 2})), {2, 2}, {.mode = "bicubic"}),
                      Catch::Contains("'bicubic'"));
}
