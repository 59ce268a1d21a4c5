#pragma once
// Float64 loop references of Chainer's n-step RNNs, one sequence at a time (a sequence's
// rows in the packed batch evolve independently), and the input layout of their tests:
// [hx, cx (LSTM only), ws[0][0..], ws[1][0..], ..., bs[0][0..], ..., xs[0], xs[1], ...] with
// xs time-major as the functions take them: xs[t] (B_t, in), B_t the sequences longer than t.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/testing/function_check.h"

namespace rensa::testing {

struct NStepSpec {
    std::string kind;  // "tanh", "relu", "gru" or "lstm"
    int n_layers = 1;
    bool bi = false;
    int64_t in = 2, units = 2;
    std::vector<int64_t> lengths{3, 2, 2};  // sorted by decreasing length

    int directions() const { return bi ? 2 : 1; }
    int stacks() const { return n_layers * directions(); }
    int n_weights() const { return kind == "lstm" ? 8 : kind == "gru" ? 6 : 2; }
    bool cell() const { return kind == "lstm"; }
    int64_t batch() const { return static_cast<int64_t>(lengths.size()); }
    int64_t steps() const { return lengths.front(); }
    // B_t: how many sequences are longer than t.
    int64_t batch_at(int64_t t) const {
        return static_cast<int64_t>(std::count_if(lengths.begin(), lengths.end(), [t](int64_t n) { return n > t; }));
    }
    // Width of the x matrices of stack s.
    int64_t x_width(int s) const { return s < directions() ? in : units * directions(); }
};

inline std::vector<InputSpec> n_step_inputs(const NStepSpec& p) {
    std::vector<InputSpec> specs{{.shape = {p.stacks(), p.batch(), p.units}}};
    if (p.cell()) specs.push_back({.shape = {p.stacks(), p.batch(), p.units}});
    for (int s = 0; s < p.stacks(); ++s) {
        for (int k = 0; k < p.n_weights(); ++k) {
            specs.push_back({.shape = {p.units, k < p.n_weights() / 2 ? p.x_width(s) : p.units}});
        }
    }
    for (int s = 0; s < p.stacks() * p.n_weights(); ++s) specs.push_back({.shape = {p.units}});
    for (int64_t t = 0; t < p.steps(); ++t) specs.push_back({.shape = {p.batch_at(t), p.in}});
    return specs;
}

// The arguments of F::n_step_* unpacked from the flat inputs.
template <class T>
struct NStepArgsOf {
    T hx, cx;
    std::vector<std::vector<T>> ws, bs;
    std::vector<T> xs;
};
template <class T>
NStepArgsOf<T> unpack_n_step(const NStepSpec& p, const std::vector<T>& flat) {
    NStepArgsOf<T> a;
    size_t i = 0;
    a.hx = flat[i++];
    if (p.cell()) a.cx = flat[i++];
    for (auto* group : {&a.ws, &a.bs}) {
        for (int s = 0; s < p.stacks(); ++s) {
            group->emplace_back();
            for (int k = 0; k < p.n_weights(); ++k) group->back().push_back(flat[i++]);
        }
    }
    while (i < flat.size()) a.xs.push_back(flat[i++]);
    return a;
}

namespace detail {
using Vec = std::vector<double>;

// W (rows, cols) row-major times v, plus b.
inline Vec affine(const Vec& W, const Vec& b, const Vec& v) {
    Vec out(b);
    const size_t cols = v.size();
    for (size_t r = 0; r < out.size(); ++r) {
        for (size_t c = 0; c < cols; ++c) out[r] += W[r * cols + c] * v[c];
    }
    return out;
}
inline double sigm(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// One cell step on doubles; ws/bs are the stack's parameters as vectors.
inline void cell_step(const NStepSpec& p, const std::vector<Vec>& W, const std::vector<Vec>& B, const Vec& x, Vec& h,
                      Vec& c) {
    const auto gate = [&](int kx, int kh) {
        Vec gx = affine(W[kx], B[kx], x), gh = affine(W[kh], B[kh], h);
        for (size_t u = 0; u < gx.size(); ++u) gx[u] += gh[u];
        return gx;
    };
    const size_t U = h.size();
    if (p.kind == "tanh" || p.kind == "relu") {
        Vec a = gate(0, 1);
        for (size_t u = 0; u < U; ++u) h[u] = p.kind == "tanh" ? std::tanh(a[u]) : std::max(a[u], 0.0);
    } else if (p.kind == "gru") {
        const Vec r = gate(0, 3), z = gate(1, 4);
        const Vec wx = affine(W[2], B[2], x), uh = affine(W[5], B[5], h);
        for (size_t u = 0; u < U; ++u) {
            const double hbar = std::tanh(wx[u] + sigm(r[u]) * uh[u]);
            h[u] = (1 - sigm(z[u])) * hbar + sigm(z[u]) * h[u];
        }
    } else {
        const Vec i = gate(0, 4), f = gate(1, 5), a = gate(2, 6), o = gate(3, 7);
        for (size_t u = 0; u < U; ++u) {
            c[u] = sigm(f[u]) * c[u] + sigm(i[u]) * std::tanh(a[u]);
            h[u] = sigm(o[u]) * std::tanh(c[u]);
        }
    }
}
}  // namespace detail

// Sequence i's rows of the time-major xs, one Vec per time step.
inline std::vector<detail::Vec> sequence_of(const NStepSpec& p, const std::vector<detail::Vec>& steps, size_t i) {
    const auto len = static_cast<size_t>(p.lengths[i]);
    std::vector<detail::Vec> seq(len);
    for (size_t t = 0; t < len; ++t) {
        seq[t] = detail::Vec(steps[t].begin() + i * p.in, steps[t].begin() + (i + 1) * p.in);
    }
    return seq;
}

// [hy, cy (LSTM), ys...] in float64, ys time-major (ys[t] (B_t, directions * units)).
inline Arrays n_step_reference(const NStepSpec& p, const Arrays& flat) {
    using detail::Vec;
    const NStepArgsOf<Array> a = unpack_n_step(p, flat);
    const Vec hx = to_doubles(a.hx), cx = p.cell() ? to_doubles(a.cx) : Vec(hx.size());
    Vec hy(hx.size()), cy(hx.size());
    const auto U = static_cast<size_t>(p.units);
    const auto n_seq = static_cast<size_t>(p.batch());
    std::vector<Vec> x_steps, y_steps(a.xs.size());
    for (const Array& x : a.xs) x_steps.push_back(to_doubles(x));
    for (size_t i = 0; i < n_seq; ++i) {
        const auto len = static_cast<size_t>(p.lengths[i]);
        std::vector<Vec> seq = sequence_of(p, x_steps, i);
        for (int layer = 0; layer < p.n_layers; ++layer) {
            std::vector<Vec> next(len);
            for (int d = 0; d < p.directions(); ++d) {
                const int s = layer * p.directions() + d;
                std::vector<Vec> W, B;
                for (int k = 0; k < p.n_weights(); ++k) {
                    W.push_back(to_doubles(a.ws[s][k]));
                    B.push_back(to_doubles(a.bs[s][k]));
                }
                const size_t off = (s * n_seq + i) * U;
                Vec h(hx.begin() + off, hx.begin() + off + U), c(cx.begin() + off, cx.begin() + off + U);
                for (size_t step = 0; step < len; ++step) {
                    const size_t t = d == 0 ? step : len - 1 - step;
                    detail::cell_step(p, W, B, seq[t], h, c);
                    next[t].insert(next[t].end(), h.begin(), h.end());
                }
                std::copy(h.begin(), h.end(), hy.begin() + off);
                std::copy(c.begin(), c.end(), cy.begin() + off);
            }
            seq = next;
        }
        for (size_t t = 0; t < len; ++t) y_steps[t].insert(y_steps[t].end(), seq[t].begin(), seq[t].end());
    }
    Arrays out{f64(hy, a.hx.shape())};
    if (p.cell()) out.push_back(f64(cy, a.hx.shape()));
    for (size_t t = 0; t < y_steps.size(); ++t) {
        out.push_back(f64(y_steps[t], {p.batch_at(static_cast<int64_t>(t)), p.units * p.directions()}));
    }
    return out;
}

}  // namespace rensa::testing
