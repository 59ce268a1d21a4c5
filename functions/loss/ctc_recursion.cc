// The CTC forward-backward recursions on arrays of any device: every sequence of the batch
// and every position of its label path at once, one time step per iteration (Chainer's
// vectorised form), in float64 log space.
//
// Note [CTC on devices]: the recursions used to be scalar host loops, so a GPU input was
// copied to the host and its gradient back. Here each step is a few core ops over (B, S)
// (S = 2L + 1 path positions: blank, l1, blank, ..., blank), so nothing leaves x's device.
// Variable lengths are masks: positions past a sequence's path (s >= 2 label_length + 1)
// are -inf, so they feed nothing; frames past input_length are not read (alpha is taken at
// frame input_length - 1, beta starts there). A predecessor outside the path contributes
// nothing, as in the host loops; impossible alignments keep Chainer's finite zero_padding
// (-1e10) so their loss is large, not infinite.

#include <algorithm>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "core/ops/manipulation.h"
#include "core/ops/reduction.h"
#include "core/ops/softmax.h"
#include "functions/loss/detail.h"

namespace rensa::functions::detail {
namespace {

constexpr double kLogZero = -1e10;  // Chainer's zero_padding
constexpr double kInf = std::numeric_limits<double>::infinity();

// a[:, i - k] along axis 1 for k > 0 (a[:, i + |k|] for k < 0), -inf where that is outside.
Array shifted(const Array& a, int64_t k) {
    const int64_t B = a.shape()[0], S = a.shape()[1], n = std::min<int64_t>(k > 0 ? k : -k, S);
    const Array fill = ops::full({B, n}, -kInf, a.dtype(), a.device());
    if (k > 0) return ops::concatenate({fill, a.index({Slice{}, Slice{0, S - n}})}, 1);
    return ops::concatenate({a.index({Slice{}, Slice{n, S}}), fill}, 1);
}

// log(exp(a) + exp(b) + exp(c)), the maximum taken out; -inf where all three are -inf.
Array logsumexp3(const Array& a, const Array& b, const Array& c) {
    const Array m = ops::maximum(ops::maximum(a, b), c);
    const Array safe = ops::where(ops::equal(m, -kInf), 0.0, m);
    const Array s = ops::add(ops::add(ops::exp(ops::subtract(a, safe)), ops::exp(ops::subtract(b, safe))),
                             ops::exp(ops::subtract(c, safe)));
    return ops::add(ops::log(s), safe);
}

// One step: out[s] = logsumexp(prev[s], prev[s - dir], prev[s - 2 dir] where skip) + logy[s],
// -inf off the path.
Array step(const Array& prev, const Array& skip, const Array& logy, const Array& on_path, int dir) {
    const Array two = ops::where(skip, shifted(prev, 2 * dir), -kInf);
    return ops::where(on_path, ops::add(logsumexp3(prev, shifted(prev, dir), two), logy), -kInf);
}

// cond ? a : b for two numbers, float64 of cond's shape.
Array choose(const Array& cond, double a, double b) {
    return ops::where(cond, ops::full(cond.shape(), a, Dtype::kFloat64, cond.device()), b);
}

// (B, S) int64: blank, t[:, 0], blank, t[:, 1], ..., blank.
Array label_paths(const Array& t, int64_t blank) {
    const int64_t B = t.shape()[0], L = t.shape()[1];
    const Array labels = t.astype(Dtype::kInt64, false);
    const Array blanks = ops::full({B, L}, blank, Dtype::kInt64, t.device());
    const Array pairs = ops::stack({blanks, labels}, 2).reshape({B, 2 * L});
    return ops::concatenate({pairs, ops::full({B, 1}, blank, Dtype::kInt64, t.device())}, 1);
}

}  // namespace

CtcResult ctc_forward_backward(const std::vector<Array>& xs, const Array& t, const Array& input_length,
                               const Array& label_length, int64_t blank) {
    const auto T = static_cast<int64_t>(xs.size());
    const int64_t B = xs[0].shape()[0], V = xs[0].shape()[1], S = 2 * t.shape()[1] + 1;
    const Device device = xs[0].device();
    std::vector<Array> frames;
    for (const Array& x : xs) frames.push_back(x.astype(Dtype::kFloat64, false));
    const Array logy = ops::log_softmax(ops::stack(frames, 0), 2);  // (T, B, V)
    const Array path = label_paths(t.to_device(device), blank);     // (B, S)
    // Flat index of logy[t, b, path[b, s]]: (T, B, S).
    const Array base = ops::add(ops::multiply(ops::arange(T, Dtype::kInt64, device).reshape({T, 1, 1}), B * V),
                                ops::multiply(ops::arange(B, Dtype::kInt64, device).reshape({1, B, 1}), V));
    const Array flat = ops::add(base, path.reshape({1, B, S}));
    const Array logy_path = ops::take(logy.reshape({T * B * V}), flat);  // (T, B, S)
    const Array positions = ops::arange(S, Dtype::kInt64, device).reshape({1, S});
    // Lengths on a device are not checked on the host; they are clamped into range there.
    const Array in_len = ops::clip(input_length.to_device(device).astype(Dtype::kInt64, false), 0, T).reshape({B, 1});
    const Array label_len = ops::clip(label_length.to_device(device).astype(Dtype::kInt64, false), 0, t.shape()[1]);
    const Array path_len = ops::add(ops::multiply(label_len, 2), 1).reshape({B, 1});
    const Array on_path = ops::less(positions, path_len);  // (B, S)
    const Array not_blank = ops::not_equal(path, blank);
    const Array skip_fwd = ops::logical_and(not_blank, ops::not_equal(path, shifted(path.astype(Dtype::kFloat64), 2)));
    const Array skip_bwd = ops::logical_and(not_blank, ops::not_equal(path, shifted(path.astype(Dtype::kFloat64), -2)));
    // Virtual frames before t = 0 and after input_length - 1 start the recursions.
    const Array start = ops::where(on_path, choose(ops::equal(positions, 0), 0.0, kLogZero), -kInf);
    const Array end =
        ops::where(on_path, choose(ops::equal(positions, ops::subtract(path_len, 1)), 0.0, kLogZero), -kInf);
    std::vector<Array> alpha(static_cast<size_t>(T)), beta(static_cast<size_t>(T));
    for (int64_t f = 0; f < T; ++f) {
        alpha[f] = step(f == 0 ? start : alpha[f - 1], skip_fwd, logy_path[f], on_path, 1);
    }
    for (int64_t f = T - 1; f >= 0; --f) {
        const Array last = ops::equal(in_len, f + 1);  // (B, 1): frame f is the sequence's last
        const Array prev = f == T - 1 ? end : ops::where(last, end, beta[f + 1]);
        beta[f] = step(prev, skip_bwd, logy_path[f], on_path, -1);
    }
    const Array alphas = ops::stack(alpha, 0);  // (T, B, S)
    const Array betas = ops::stack(beta, 0);
    // log p = logaddexp(alpha[Tb - 1, S_b - 1], alpha[Tb - 1, S_b - 2]) (S_b - 2 absent for S_b = 1).
    const Array rows = ops::arange(B, Dtype::kInt64, device).reshape({B, 1});
    const Array last_frame = ops::maximum(ops::subtract(in_len, 1), 0);  // (B, 1)
    const Array at_last = ops::take(alphas, ops::add(ops::multiply(ops::add(ops::multiply(last_frame, B), rows), S),
                                                     positions));  // (B, S)
    const Array at_row = ops::multiply(rows, S);
    const Array end_a = ops::take(at_last, ops::add(at_row, ops::subtract(path_len, 1)));
    const Array end_b =
        ops::where(ops::greater(path_len, 1),
                   ops::take(at_last, ops::add(at_row, ops::maximum(ops::subtract(path_len, 2), 0))), -kInf);
    const Array logp = logsumexp3(end_a, end_b, ops::full({B, 1}, -kInf, Dtype::kFloat64, device));  // (B, 1)
    const Array empty = ops::equal(in_len, 0);
    const Array loss = ops::where(empty, choose(ops::equal(path_len, 1), 0.0, -kLogZero), ops::negative(logp));
    // Gradient: softmax(x) minus the posteriors of the path positions, zero past input_length.
    const Array frame_ids = ops::arange(T, Dtype::kInt64, device).reshape({T, 1, 1});
    const Array live = ops::less(frame_ids, in_len.reshape({1, B, 1}));  // (T, B, 1)
    const Array post = ops::where(
        ops::logical_and(live, on_path.reshape({1, B, S})),
        ops::exp(ops::subtract(ops::subtract(ops::add(alphas, betas), logy_path), logp.reshape({1, B, 1}))), 0.0);
    const Array grad = ops::where(live, ops::exp(logy), 0.0).reshape({T * B * V}).copy();
    ops::scatter_add(grad, flat, ops::negative(post));
    return {loss.reshape({B}), grad.reshape({T, B, V})};
}

}  // namespace rensa::functions::detail
