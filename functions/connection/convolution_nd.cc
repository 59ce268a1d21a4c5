// convolution_nd and deconvolution_nd, and the three nodes every convolution function is
// built on. Note [Convolution double backprop]: as in Chainer, the gradients of each node
// are other nodes of this file (convolution <-> deconvolution for x, the filter gradient
// for W), each differentiable again, so any order of backprop works.

#include <algorithm>
#include <string>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "core/ops/convolution.h"
#include "core/ops/elementwise.h"
#include "functions/connection/convolution.h"
#include "functions/connection/detail.h"

namespace rensa::functions {
namespace {

using ops::ConvolutionParams;

Shape spatial(const Shape& shape) { return Shape(shape.begin() + 2, shape.end()); }

// The convolution nodes' FunctionNode::attributes(), by Chainer's argument names.
FunctionNode::Attributes convolution_attributes(const ConvolutionParams& p) {
    using Ints = std::vector<int64_t>;
    return {{"stride", Ints(p.stride.begin(), p.stride.end())},
            {"pad", Ints(p.pad.begin(), p.pad.end())},
            {"dilate", Ints(p.dilate.begin(), p.dilate.end())},
            {"groups", p.groups},
            {"cover_all", p.cover_all}};
}

// Axes 0, 2, 3, ...: what the bias gradient sums over.
Axes bias_axes(int ndim) {
    Axes axes{0};
    for (int i = 2; i < ndim; ++i) axes.push_back(i);
    return axes;
}

// Adds b (c) to y (n, c, ...) in place.
void add_bias(const Array& y, const Array& b) {
    Shape shape(y.ndim() - 1, 1);
    shape[0] = b.shape()[0];
    ops::add_inplace(y, b.reshape(shape));
}

Variable convolution_node(const Variable& x, const Variable& W, const Variable& b, const ConvolutionParams& p,
                          const std::string& op);
Variable deconvolution_node(const Variable& x, const Variable& W, const Variable& b, const ConvolutionParams& p,
                            const Shape& outsize, const std::string& op);
Variable filter_grad_node(const Variable& x, const Variable& gy, const Shape& k_size, const ConvolutionParams& p);

class ConvolutionND : public FunctionNode {
public:
    ConvolutionND(ConvolutionParams p, std::string op) : p_{std::move(p)}, op_{std::move(op)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::convolution(xs[0], xs[1], xs.size() > 2 ? xs[2] : Array(), p_, op_)};
    }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0), W = retained_input(1);
        std::vector<Variable> gxs(inputs().size());
        for (const int i : indexes) {
            if (i == 0) gxs[0] = deconvolution_node(gys[0], W, Variable(), p_, spatial(x.shape()), "deconvolution_nd");
            if (i == 1) gxs[1] = filter_grad_node(x, gys[0], spatial(W.shape()), p_);
            if (i == 2) gxs[2] = sum(gys[0], bias_axes(x.ndim()));
        }
        return gxs;
    }
    std::string label() const override { return "ConvolutionND"; }
    Attributes attributes() const override { return convolution_attributes(p_); }

private:
    ConvolutionParams p_;
    std::string op_;
};

// The transpose of ConvolutionND (p_.cover_all tells which convolution it transposes).
class DeconvolutionND : public FunctionNode {
public:
    DeconvolutionND(ConvolutionParams p, Shape outsize, std::string op)
        : p_{std::move(p)}, outsize_{std::move(outsize)}, op_{std::move(op)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        const Array y = ops::convolution_backward_data(xs[0], xs[1], outsize_, p_, op_);
        if (xs.size() > 2) add_bias(y, xs[2]);
        return {y};
    }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& gys) override {
        const Variable x = retained_input(0), W = retained_input(1);
        std::vector<Variable> gxs(inputs().size());
        for (const int i : indexes) {
            if (i == 0) gxs[0] = convolution_node(gys[0], W, Variable(), p_, "convolution_nd");
            if (i == 1) gxs[1] = filter_grad_node(gys[0], x, spatial(W.shape()), p_);
            if (i == 2) gxs[2] = sum(gys[0], bias_axes(x.ndim()));
        }
        return gxs;
    }
    std::string label() const override { return "DeconvolutionND"; }
    Attributes attributes() const override {
        Attributes a = convolution_attributes(p_);
        a.emplace_back("outsize", std::vector<int64_t>(outsize_.begin(), outsize_.end()));
        return a;
    }

private:
    ConvolutionParams p_;
    Shape outsize_;
    std::string op_;
};

// gW of a convolution from x and gy (Chainer's Convolution2DGradW).
class ConvolutionNDGradW : public FunctionNode {
public:
    ConvolutionNDGradW(ConvolutionParams p, Shape k_size) : p_{std::move(p)}, k_size_{std::move(k_size)} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0, 1});
        return {ops::convolution_backward_filter(xs[0], xs[1], k_size_, p_, "convolution_nd")};
    }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& ggs) override {
        const Variable x = retained_input(0), gy = retained_input(1);
        std::vector<Variable> gxs(2);
        for (const int i : indexes) {
            if (i == 0) gxs[0] = deconvolution_node(gy, ggs[0], Variable(), p_, spatial(x.shape()), "deconvolution_nd");
            if (i == 1) gxs[1] = convolution_node(x, ggs[0], Variable(), p_, "convolution_nd");
        }
        return gxs;
    }
    std::string label() const override { return "ConvolutionNDGradW"; }

private:
    ConvolutionParams p_;
    Shape k_size_;
};

std::vector<Variable> operands(const Variable& x, const Variable& W, const Variable& b) {
    return b.defined() ? std::vector<Variable>{x, W, b} : std::vector<Variable>{x, W};
}

Variable convolution_node(const Variable& x, const Variable& W, const Variable& b, const ConvolutionParams& p,
                          const std::string& op) {
    return std::make_shared<ConvolutionND>(p, op)->apply(operands(x, W, b))[0];
}

Variable deconvolution_node(const Variable& x, const Variable& W, const Variable& b, const ConvolutionParams& p,
                            const Shape& outsize, const std::string& op) {
    return std::make_shared<DeconvolutionND>(p, outsize, op)->apply(operands(x, W, b))[0];
}

Variable filter_grad_node(const Variable& x, const Variable& gy, const Shape& k_size, const ConvolutionParams& p) {
    return std::make_shared<ConvolutionNDGradW>(p, k_size)->apply({x, gy})[0];
}

// Chainer's deconvolution outsize: the given one (checked against x) or the smallest;
// sets p.cover_all when x's size is only reached with cover_all (Chainer's _set_cover_all).
Shape deconvolution_outsize(const Variable& x, const Variable& W, const std::optional<Shape>& given,
                            ConvolutionParams& p, const std::string& op) {
    const int nd = x.ndim() - 2;
    Shape outsize;
    for (int i = 0; i < nd; ++i) {
        const int64_t in = x.shape()[i + 2], k = W.shape()[i + 2];
        const int64_t s = p.stride[i], pad = p.pad[i], d = p.dilate[i];
        const int64_t o = given ? (*given)[i] : ops::deconv_outsize(in, k, s, pad, false, d);
        RENSA_CHECK(o > 0, DimensionError, op, ": the output size would be ", o, " in spatial dim ", i);
        const int64_t lower = ops::conv_outsize(o, k, s, pad, false, d),
                      upper = ops::conv_outsize(o, k, s, pad, true, d);
        RENSA_CHECK(lower <= in && in <= upper, DimensionError, op, ": Expect: ", lower, " <= x.shape[", i + 2,
                    "] <= ", upper, " for outsize ", o, ", Actual: x.shape[", i + 2, "] = ", in);
        if (in != lower) p.cover_all = true;
        outsize.push_back(o);
    }
    return outsize;
}

}  // namespace

namespace detail {

void check_convolution_inputs(const Variable& x, const Variable& W, const Variable& b, int ndim,
                              const std::string& op) {
    expect_float(x, op, "x");
    expect_same_dtype(W, x, op, "W", "x");
    if (ndim > 0) {
        expect_ndim(x, ndim, op, "x");
    }
    RENSA_CHECK(x.ndim() >= 3 && x.ndim() <= 5, DimensionError, op,
                ": Expect: x.ndim in (3, 4, 5) (1 to 3 spatial dims), Actual: ", x.ndim());
    RENSA_CHECK(W.ndim() == x.ndim(), DimensionError, op, ": Expect: W.ndim == x.ndim, Actual: ", W.ndim(),
                " != ", x.ndim());
    if (b.defined()) {
        RENSA_CHECK(b.dtype() == x.dtype(), DtypeError, op,
                    ": Expect: b.dtype == x.dtype, Actual: ", dtype_name(b.dtype()), " != ", dtype_name(x.dtype()));
        expect_ndim(b, 1, op, "b");
    }
}

Variable convolution(const Variable& x, const Variable& W, const Variable& b, const ConvolutionOptions& o, int ndim,
                     const std::string& op) {
    check_convolution_inputs(x, W, b, ndim, op);
    const int nd = x.ndim() - 2;
    const ConvolutionParams p{.stride = o.stride.expand(nd, op.c_str(), "stride"),
                              .pad = o.pad.expand(nd, op.c_str(), "pad"),
                              .dilate = o.dilate.expand(nd, op.c_str(), "dilate"),
                              .groups = o.groups,
                              .cover_all = o.cover_all};
    return convolution_node(x, W, b, p, op);
}

Variable deconvolution(const Variable& x, const Variable& W, const Variable& b, const DeconvolutionOptions& o, int ndim,
                       const std::string& op) {
    check_convolution_inputs(x, W, b, ndim, op);
    const int nd = x.ndim() - 2;
    ConvolutionParams p{.stride = o.stride.expand(nd, op.c_str(), "stride"),
                        .pad = o.pad.expand(nd, op.c_str(), "pad"),
                        .dilate = o.dilate.expand(nd, op.c_str(), "dilate"),
                        .groups = o.groups};
    RENSA_CHECK(p.groups >= 1, ValueError, op, ": groups must be positive, got ", p.groups);
    RENSA_CHECK(!o.outsize || o.outsize->size() == nd, ValueError, op, ": outsize needs ", nd, " entries, got ",
                *o.outsize);
    RENSA_CHECK(x.shape()[1] == W.shape()[0], DimensionError, op,
                ": Expect: x.shape[1] == W.shape[0], Actual: ", x.shape()[1], " != ", W.shape()[0]);
    if (b.defined()) {
        RENSA_CHECK(b.shape()[0] == W.shape()[1] * p.groups, DimensionError, op,
                    ": Expect: b.shape[0] == W.shape[1] * groups, Actual: ", b.shape()[0], " != ", W.shape()[1], " * ",
                    p.groups);
    }
    const Shape outsize = deconvolution_outsize(x, W, o.outsize, p, op);
    return deconvolution_node(x, W, b, p, outsize, op);
}

}  // namespace detail

Shape IntOrTuple::expand(int ndim, const char* op, const char* what) const {
    if (values.size() == 1) return Shape(ndim, values[0]);
    RENSA_CHECK(values.size() == ndim, ValueError, op, ": ", what, " needs 1 or ", ndim, " entries, got ", values);
    return values;
}

Variable convolution_nd(const Variable& x, const Variable& W, const Variable& b, const ConvolutionOptions& options) {
    return detail::convolution(x, W, b, options, 0, "convolution_nd");
}

Variable deconvolution_nd(const Variable& x, const Variable& W, const Variable& b,
                          const DeconvolutionOptions& options) {
    return detail::deconvolution(x, W, b, options, 0, "deconvolution_nd");
}

}  // namespace rensa::functions
