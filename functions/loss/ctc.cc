// Connectionist temporal classification (Graves et al., 2006), Chainer's F.connectionist_temporal_classification.
// The alpha/beta recursions run on the host in float64 log space; inputs on another device
// are copied over and the results copied back.

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/ops/creation.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"

namespace rensa::functions {
namespace {

// log(0) as Chainer's zero_padding: finite, so impossible alignments give a huge loss, not NaN.
constexpr double kLogZero = -1e10;

// v[i] with a signed index (the sizes here are int64_t, as Shape's).
template <class Vector>
auto& at(Vector& v, int64_t i) {
    return v[static_cast<size_t>(i)];
}

double logaddexp(double a, double b) {
    const double m = std::max(a, b);
    return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// Everything on the host: log-softmax of the scores, labels and lengths.
struct Problem {
    int64_t T, B, V, L, blank;
    std::vector<double> logy;  // (T, B, V)
    std::vector<int64_t> labels, input_length, label_length;
    double logy_at(int64_t t, int64_t b, int64_t v) const { return at(logy, (t * B + b) * V + v); }
};

void log_softmax_rows(Problem& p, const std::vector<Array>& xs) {
    for (int64_t t = 0; t < p.T; ++t) {
        const std::vector<double> x = at(xs, t).to_vector<double>();
        for (int64_t b = 0; b < p.B; ++b) {
            const double* row = x.data() + b * p.V;
            const double m = *std::max_element(row, row + p.V);
            double s = 0;
            for (int64_t v = 0; v < p.V; ++v) s += std::exp(row[v] - m);
            for (int64_t v = 0; v < p.V; ++v) at(p.logy, (t * p.B + b) * p.V + v) = row[v] - m - std::log(s);
        }
    }
}

// blank, l1, blank, l2, ..., blank for sequence b.
std::vector<int64_t> label_path(const Problem& p, int64_t b) {
    std::vector<int64_t> path{p.blank};
    for (int64_t i = 0; i < at(p.label_length, b); ++i) {
        path.push_back(at(p.labels, b * p.L + i));
        path.push_back(p.blank);
    }
    return path;
}

// One step of the recursion: out[s] = logsumexp over the allowed predecessors of s (s,
// s - dir, and s - 2 dir when the symbol there differs and is not blank) + log y(path[s]).
std::vector<double> transition(const Problem& p, const std::vector<int64_t>& path, const std::vector<double>& prev,
                               int64_t t, int64_t b, int dir) {
    const int64_t S = static_cast<int64_t>(path.size());
    std::vector<double> out(static_cast<size_t>(S), kLogZero);
    for (int64_t s = 0; s < S; ++s) {
        double acc = at(prev, s);
        const int64_t s1 = s - dir, s2 = s - 2 * dir;
        if (s1 >= 0 && s1 < S) acc = logaddexp(acc, at(prev, s1));
        if (s2 >= 0 && s2 < S && at(path, s) != p.blank && at(path, s) != at(path, s2)) {
            acc = logaddexp(acc, at(prev, s2));
        }
        at(out, s) = acc + p.logy_at(t, b, at(path, s));
    }
    return out;
}

// d loss / d x at frame t of sequence b: softmax(x) minus the posteriors of the path
// positions labelled v, sum_s exp(alpha + beta - log y - log p) (alpha and beta both hold y).
void frame_grad(const Problem& p, const std::vector<int64_t>& path, const std::vector<double>& alpha,
                const std::vector<double>& beta, double logp, int64_t t, int64_t b, std::vector<double>& grad) {
    double* g = grad.data() + (t * p.B + b) * p.V;
    for (int64_t v = 0; v < p.V; ++v) g[v] = std::exp(p.logy_at(t, b, v));
    for (int64_t s = 0; s < static_cast<int64_t>(path.size()); ++s) {
        const int64_t v = at(path, s);
        g[v] -= std::exp(at(alpha, s) + at(beta, s) - p.logy_at(t, b, v) - logp);
    }
}

// Loss of sequence b; writes its gradient into grad (T, B, V) (zero past input_length).
double sequence_loss(const Problem& p, int64_t b, std::vector<double>& grad) {
    const std::vector<int64_t> path = label_path(p, b);
    const int64_t S = static_cast<int64_t>(path.size()), Tb = at(p.input_length, b);
    if (Tb == 0) return S == 1 ? 0.0 : -kLogZero;
    // Virtual steps before t = 0 (forward) and after Tb - 1 (backward) start the recursions.
    std::vector<double> start(static_cast<size_t>(S), kLogZero), end(static_cast<size_t>(S), kLogZero);
    at(start, 0) = 0;
    at(end, S - 1) = 0;
    std::vector<std::vector<double>> alpha(static_cast<size_t>(Tb)), beta(static_cast<size_t>(Tb));
    for (int64_t t = 0; t < Tb; ++t) at(alpha, t) = transition(p, path, t == 0 ? start : at(alpha, t - 1), t, b, 1);
    for (int64_t t = Tb - 1; t >= 0; --t) {
        at(beta, t) = transition(p, path, t == Tb - 1 ? end : at(beta, t + 1), t, b, -1);
    }
    const std::vector<double>& last = at(alpha, Tb - 1);
    const double logp = S > 1 ? logaddexp(at(last, S - 1), at(last, S - 2)) : last[0];
    for (int64_t t = 0; t < Tb; ++t) frame_grad(p, path, at(alpha, t), at(beta, t), logp, t, b, grad);
    return -logp;
}

// gx_t = grad_t * gy (/ B for "mean"), from the gradient kept by the forward pass.
class CTCGrad : public FunctionNode {
public:
    CTCGrad(std::shared_ptr<const std::vector<double>> grad, Problem shape, bool mean, Dtype dtype, Device device)
        : grad_{std::move(grad)}, p_{std::move(shape)}, mean_{mean}, dtype_{dtype}, device_{device} {}
    std::vector<Array> forward(const std::vector<Array>& in) override {
        const std::vector<double> gy = in[0].to_vector<double>();
        std::vector<Array> gxs;
        for (int64_t t = 0; t < p_.T; ++t) {
            std::vector<double> g(static_cast<size_t>(p_.B * p_.V));
            for (int64_t b = 0; b < p_.B; ++b) {
                const double scale = mean_ ? gy[0] / static_cast<double>(p_.B) : at(gy, b);
                for (int64_t v = 0; v < p_.V; ++v) {
                    at(g, b * p_.V + v) = scale * at(*grad_, (t * p_.B + b) * p_.V + v);
                }
            }
            gxs.push_back(Array::from_vector(g, {p_.B, p_.V}, device_).astype(dtype_));
        }
        return gxs;
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>&) override {
        RENSA_THROW(NotImplementedError, "connectionist_temporal_classification: double backprop is not supported");
    }
    std::string label() const override { return "ConnectionistTemporalClassificationGrad"; }

private:
    std::shared_ptr<const std::vector<double>> grad_;
    Problem p_;  // sizes only
    bool mean_;
    Dtype dtype_;
    Device device_;
};

// Inputs: x_0 ... x_{T-1}; the labels and lengths are held by the node.
class ConnectionistTemporalClassification : public FunctionNode {
public:
    ConnectionistTemporalClassification(Problem p, bool mean) : p_{std::move(p)}, mean_{mean} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        p_.logy.resize(static_cast<size_t>(p_.T * p_.B * p_.V));
        log_softmax_rows(p_, xs);
        auto grad = std::make_shared<std::vector<double>>(p_.logy.size(), 0.0);
        std::vector<double> loss(static_cast<size_t>(p_.B));
        for (int64_t b = 0; b < p_.B; ++b) at(loss, b) = sequence_loss(p_, b, *grad);
        grad_ = std::move(grad);
        p_.logy.clear();
        Array out = Array::from_vector(loss, {p_.B}, xs[0].device());
        if (mean_)
            out = Array::from_vector(
                std::vector<double>{std::accumulate(loss.begin(), loss.end(), 0.0) / static_cast<double>(p_.B)}, {},
                xs[0].device());
        return {out.astype(xs[0].dtype())};
    }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        const std::vector<Variable> g =
            std::make_shared<CTCGrad>(grad_, p_, mean_, input_dtype(0), gys[0].device())->apply({gys[0]});
        std::vector<Variable> gxs;
        for (const int i : targets) gxs.push_back(at(g, i));
        return gxs;
    }
    std::string label() const override { return "ConnectionistTemporalClassification"; }

private:
    Problem p_;
    bool mean_;
    std::shared_ptr<const std::vector<double>> grad_;  // (T, B, V), unscaled
};

void check_scores(const std::vector<Variable>& x) {
    constexpr std::string_view kName = "connectionist_temporal_classification";
    RENSA_CHECK(!x.empty(), ValueError, kName, ": x must be a non-empty list of Variables");
    for (size_t i = 0; i < x.size(); ++i) {
        const std::string name = "x[" + std::to_string(i) + "]";
        expect_float(x[i], kName, name);
        expect_ndim(x[i], 2, kName, name);
        expect_same_dtype(x[0], x[i], kName, "x[0]", name);
        expect_same_shape(x[0], x[i], kName, "x[0]", name);
    }
}

// Host copy of an optional (B,) length vector (default `fill`), each within [0, high].
std::vector<int64_t> lengths(const Variable& v, std::string_view name, int64_t B, int64_t fill, int64_t high) {
    constexpr std::string_view kName = "connectionist_temporal_classification";
    if (!v.defined()) return std::vector<int64_t>(static_cast<size_t>(B), fill);
    expect_integer(v, kName, name);
    RENSA_CHECK(v.shape() == Shape{B}, DimensionError, kName, ": Expect: ", name, ".shape == (", B,
                ",), Actual: ", v.shape());
    return detail::check_loss_label_range(kName, name, v.array(), high + 1);
}

// Labels inside label_length must be in [0, V) and not blank.
void check_labels(const Problem& p) {
    for (int64_t b = 0; b < p.B; ++b) {
        for (int64_t i = 0; i < at(p.label_length, b); ++i) {
            const int64_t v = at(p.labels, b * p.L + i);
            RENSA_CHECK(v >= 0 && v < p.V && v != p.blank, ValueError,
                        "connectionist_temporal_classification: label t[", b, ", ", i, "] is ", v, ", outside [0, ",
                        p.V, ") or equal to blank_symbol ", p.blank);
        }
    }
}

}  // namespace

Variable connectionist_temporal_classification(const std::vector<Variable>& x, const Variable& t, int64_t blank_symbol,
                                               const CTCOptions& options) {
    constexpr std::string_view kName = "connectionist_temporal_classification";
    detail::check_loss_reduce(kName, options.reduce, {"mean", "no"});
    check_scores(x);
    expect_integer(t, kName, "t");
    const int64_t T = static_cast<int64_t>(x.size()), B = x[0].shape()[0], V = x[0].shape()[1];
    RENSA_CHECK(t.ndim() == 2 && t.shape()[0] == B, DimensionError, kName, ": Expect: t.shape == (", B,
                ", L), Actual: ", t.shape());
    RENSA_CHECK(blank_symbol >= 0 && blank_symbol < V, ValueError, kName, ": blank_symbol ", blank_symbol,
                " is outside [0, ", V, ")");
    const int64_t L = t.shape()[1];
    Problem p{.T = T,
              .B = B,
              .V = V,
              .L = L,
              .blank = blank_symbol,
              .logy = {},
              .labels = t.array().to_vector<int64_t>(),
              .input_length = lengths(options.input_length, "input_length", B, T, T),
              .label_length = lengths(options.label_length, "label_length", B, L, L)};
    check_labels(p);
    return std::make_shared<ConnectionistTemporalClassification>(std::move(p), options.reduce == "mean")->apply(x)[0];
}

}  // namespace rensa::functions
