// pad in every numpy mode: the forward is numpy.pad's (functions/array/pad_modes.cc), the
// gradient the interior slice of the output's gradient.
//
// Note [Pad gradient]: Chainer 7.8.1's Pad.backward returns gy[interior] in every mode, so
// values copied into the border ('edge', 'reflect', 'wrap', ...) or computed from x
// ('mean', 'linear_ramp', ...) pass no gradient back to x. rensa keeps Chainer's gradient,
// so that ported code trains the same; it is the exact gradient in 'constant' mode only.

#include <memory>
#include <optional>
#include <string>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

using PadWidth = std::vector<std::pair<int64_t, int64_t>>;

class Pad : public FunctionNode {
public:
    Pad(PadWidth pad_width, std::string mode, PadOptions options, std::optional<Scalar> value)
        : pad_width_{std::move(pad_width)}, mode_{std::move(mode)}, options_{std::move(options)}, value_{value} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        if (value_) return {ops::pad(xs[0], pad_width_, *value_)};  // one scalar constant: the direct kernel
        return {array_detail::pad_array(xs[0], pad_width_, mode_, options_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        std::vector<ItemIndex> interior;
        const Shape& shape = input_shape(0);
        for (int d = 0; d < shape.size(); ++d) {
            const int64_t before = pad_width_[static_cast<size_t>(d)].first;
            interior.emplace_back(Slice{before, before + shape[d]});
        }
        return {get_item(gys[0], interior)};
    }
    std::string label() const override { return "Pad"; }
    // pad_width flattened (before_0, after_0, before_1, ...), mode, and the keywords given.
    Attributes attributes() const override {
        std::vector<int64_t> widths;
        for (const auto& [before, after] : pad_width_) widths.insert(widths.end(), {before, after});
        Attributes a{{"pad_width", std::move(widths)}, {"mode", mode_}};
        if (value_) a.emplace_back("constant_values", value_->to_double());
        if (options_.constant_values) {
            std::vector<double> values;
            for (const auto& [before, after] : *options_.constant_values) values.insert(values.end(), {before, after});
            a.emplace_back("constant_values", std::move(values));
        }
        if (options_.reflect_type) a.emplace_back("reflect_type", *options_.reflect_type);
        if (options_.end_values || options_.stat_length) a.emplace_back("other_keywords", true);
        return a;
    }

private:
    PadWidth pad_width_;  // one pair per axis
    std::string mode_;
    PadOptions options_;
    std::optional<Scalar> value_;  // set for constant mode with one scalar value
};

PadWidth checked_widths(const Variable& x, const PadWidth& pad_width, std::string_view mode) {
    expect_defined(x, "pad", "x");
    RENSA_CHECK(array_detail::is_pad_mode(mode), ValueError, "pad: mode '", mode,
                "' is not supported; expected one of constant, edge, linear_ramp, maximum, mean, median, minimum, "
                "reflect, symmetric, wrap, empty");
    const size_t ndim = static_cast<size_t>(x.ndim());
    RENSA_CHECK(pad_width.size() == 1 || pad_width.size() == ndim, ValueError, "pad: pad_width has ", pad_width.size(),
                " pairs but x of shape ", x.shape(), " needs 1 or ", ndim);
    PadWidth widths = pad_width.size() == ndim ? pad_width : PadWidth(ndim, pad_width[0]);
    for (size_t d = 0; d < ndim; ++d) {
        RENSA_CHECK(widths[d].first >= 0 && widths[d].second >= 0, ValueError, "pad: pad_width[", d, "] = (",
                    widths[d].first, ", ", widths[d].second, ") must be non-negative");
    }
    return widths;
}

}  // namespace

Variable pad(const Variable& x, const PadWidth& pad_width, std::string_view mode, const PadOptions& options) {
    PadWidth widths = checked_widths(x, pad_width, mode);
    array_detail::check_pad_keywords(mode, options);
    return std::make_shared<Pad>(std::move(widths), std::string(mode), options, std::nullopt)->apply({x})[0];
}

Variable pad(const Variable& x, const PadWidth& pad_width, std::string_view mode, Scalar constant_values) {
    PadWidth widths = checked_widths(x, pad_width, mode);
    if (mode != "constant") {
        RENSA_CHECK(constant_values.to_double() == 0.0, ValueError, "pad: unsupported keyword arguments for mode '",
                    mode, "': constant_values");
        return pad(x, widths, mode, PadOptions{});
    }
    return std::make_shared<Pad>(std::move(widths), std::string(mode), PadOptions{}, constant_values)->apply({x})[0];
}

Variable pad(const Variable& x, int64_t pad_width, std::string_view mode, Scalar constant_values) {
    return pad(x, PadWidth{{pad_width, pad_width}}, mode, constant_values);
}

}  // namespace rensa::functions
