#pragma once
// The backend contract: every device implements this pure-virtual interface, so a
// missing kernel is a compile error. core/ops validate arguments, allocate outputs
// and call these; kernels may assume what each comment promises and never re-check.
// Operands may be non-contiguous (strides in bytes, possibly zero or negative)
// unless a comment says otherwise, and are all on the kernel's device.

#include <cstdint>
#include <span>

#include "core/array.h"
#include "core/elementwise_table.h"
#include "core/scalar.h"

namespace rensa {

enum class ReduceOp : uint8_t { kSum, kProd, kMax, kMin, kAny, kAll };
enum class ArgReduceOp : uint8_t { kArgMax, kArgMin };
enum class RandomDistribution : uint8_t { kUniform, kNormal, kBernoulli, kRandint };

// out[b] = alpha * op(a[b]) @ op(b[b]) + beta * out[b] for every batch index b.
// a: (batch, m, k) or (batch, k, m) when trans_a; b: (batch, k, n) or (batch, n, k)
// when trans_b; out: (batch, m, n). One dtype for all three; any strides (a batch
// stride of 0 broadcasts).
struct GemmArgs {
    Array a, b, out;
    bool trans_a = false, trans_b = false;
    double alpha = 1.0, beta = 0.0;
};

// out = x.take(indices, axis): out.shape = x.shape[:axis] + indices.shape + x.shape[axis+1:].
// indices are int64 and already in [0, x.shape[axis]).
struct TakeArgs {
    Array x, indices;
    int axis = 0;
    Array out;
};

// numpy's add.at along an axis: target[..., indices[j...], ...] += values[..., j..., ...].
// Repeated indices accumulate. indices are int64 in range; values has dtype of target and
// shape target.shape[:axis] + indices.shape + target.shape[axis+1:].
struct ScatterAddArgs {
    Array target, indices;
    int axis = 0;
    Array values;
};

// Fills a contiguous `out` from the Philox stream (seed, offset): element i uses counter
// offset + i, so the numbers never depend on the device or the thread count.
// kUniform: [a, b); kNormal: mean a, std b; kBernoulli: 1 with probability a (out any
// dtype); kRandint: integers in [a, b) (out integral).
struct RandomArgs {
    RandomDistribution distribution = RandomDistribution::kUniform;
    uint64_t seed = 0, offset = 0;
    double a = 0.0, b = 1.0;
    Array out;
};

// Stable ascending sort along `axis` (NaN last). Either output may be undefined.
// values: dtype of x; indices: int64.
struct SortArgs {
    Array x;
    int axis = 0;
    Array values, indices;
};

// --- Convolution (1 to 3 spatial dimensions; see Note [Convolution layout]).
// Note [Convolution layout]: x (n, c_in, *in), w (c_out, c_in / groups, *k),
// y (n, c_out, *out), b (c_out) or undefined; stride, pad and dilate hold one entry per
// spatial dimension. out sizes come from core/ops (cover_all is an ops concern: the
// kernels read only positions inside the padded input). One float dtype for all; x, w,
// gy may be non-contiguous; outputs are contiguous.
struct ConvolutionArgs {
    Array x, w, b;  // b undefined: no bias
    Array y;
    Shape stride, pad, dilate;
    int64_t groups = 1;
};
// gx = the transpose of the convolution applied to gy (also deconvolution's forward).
struct ConvolutionBackwardDataArgs {
    Array gy, w;
    Array gx;
    Shape stride, pad, dilate;
    int64_t groups = 1;
};
// gw = d(sum(y * gy)) / dw.
struct ConvolutionBackwardFilterArgs {
    Array x, gy;
    Array gw;
    Shape stride, pad, dilate;
    int64_t groups = 1;
};

// --- Pooling over the trailing 1 to 3 spatial dims of x (n, c, *in) -> y (n, c, *out).
// Windows start at o * stride - pad and cover ksize positions clipped to the input;
// kAverage divides by the full window size (padding counts as pad_value 0, Chainer's
// default), kAverageExcludePad by the number of positions inside the input (an empty
// window gives 0). kMax takes the first max (NaN propagates); an empty window gives
// -inf and index -1. x, gy and indices may have any strides; y, indices (forward) and
// gx are contiguous outputs. One float dtype for x, y (gy, gx); float16 computes in float32.
enum class PoolMode : uint8_t { kMax, kAverage, kAverageExcludePad };
struct PoolArgs {
    PoolMode mode = PoolMode::kMax;
    Array x, y;
    Array indices;  // kMax: int64 of y's shape, flat index of the max in x's spatial plane (or undefined: not written)
    Shape ksize, stride, pad;
};
// gx (x's shape, overwritten) from gy; kMax scatter-adds gy through `indices` (entries
// outside [0, prod(in)) are skipped), the average modes spread gy over each window.
struct PoolBackwardArgs {
    PoolMode mode = PoolMode::kMax;
    Array gy, indices;
    Array gx;
    Shape ksize, stride, pad;
};

// y = softmax(x) (or log_softmax when `log`) along `axis`; same shape and float dtype.
struct SoftmaxArgs {
    Array x;
    int axis = 1;
    bool log = false;
    Array y;
};

// Batch normalization of x (n, c, s) (contiguous; the channel axis in the middle; ops
// reshape Chainer's `axis` argument to this) with per-channel gamma, beta (c).
// compute_stats: mean and inv_std (c) are outputs (batch statistics over n and s,
// inv_std = 1 / sqrt(var + eps)); otherwise they are inputs. y = (x - mean) * inv_std *
// gamma + beta. gamma, beta, mean, inv_std are contiguous (c) arrays of x's dtype
// (float32 for float16/bfloat16 x); y is contiguous like x.
struct BatchNormArgs {
    Array x, gamma, beta;
    Array mean, inv_std;
    bool compute_stats = true;
    double eps = 2e-5;
    Array y;
};
// Gradients of batch normalization with batch statistics: gx, ggamma, gbeta from gy.
// gy and gx are contiguous (n, c, s) like x; the (c) arrays follow BatchNormArgs.
struct BatchNormBackwardArgs {
    Array x, gamma, mean, inv_std, gy;
    Array gx, ggamma, gbeta;
};

// --- Optimizer updates (see Note [Fused updates] in optimizers/optimizer.h): one pass that
// changes param and the rule's state in place from grad, the formulas of Chainer's rules.
// param, grad and the state arrays (s0, s1, s2 in the order below; unused ones undefined)
// are contiguous, of one float dtype (float16/bfloat16 compute in float32) and one shape,
// and do not overlap. Scalars are read as the rule says; the rest are ignored.
//   kSgd                  p -= lr * g
//   kMomentumSgd          s0=v: v = momentum * v - lr * g; p += v
//   kNesterovAg           s0=v: v = momentum * v - lr * g; p += momentum^2 * v - (1 + momentum) * lr * g
//   kCorrectedMomentumSgd s0=v: v = momentum * v - g; p += lr * v
//   kAdaGrad              s0=h: h += g^2; p -= lr * g / (sqrt(h) + eps)
//   kAdaDelta             s0=msg, s1=msdx (rho, eps)
//   kRmsprop              s0=ms (lr, alpha, eps, eps_inside_sqrt)
//   kRmspropGraves        s0=n, s1=g, s2=delta (lr, alpha, momentum, eps)
//   kSmorms3              s0=mem, s1=g, s2=g2 (lr, eps)
//   kAdam                 s0=m, s1=v, s2=vhat when amsgrad; lr is alpha_t; beta1, beta2, eps, eta,
//                         weight_decay_rate; adabound clips alpha_t / (sqrt(v) + eps) to [lower, upper]
//   kMsvag                s0=m, s1=v (lr, beta, eta, weight_decay_rate, beta_power, rho)
enum class OptimizerRule : uint8_t {
    kSgd,
    kMomentumSgd,
    kNesterovAg,
    kCorrectedMomentumSgd,
    kAdaGrad,
    kAdaDelta,
    kRmsprop,
    kRmspropGraves,
    kSmorms3,
    kAdam,
    kMsvag,
};
struct OptimizerStepArgs {
    OptimizerRule rule = OptimizerRule::kSgd;
    Array param{}, grad{};  // {}: designated initializers may leave them out
    Array s0{}, s1{}, s2{};
    double lr = 0.0, momentum = 0.0, alpha = 0.0, rho = 0.0, eps = 0.0;
    double beta = 0.0, beta1 = 0.0, beta2 = 0.0, eta = 1.0, weight_decay_rate = 0.0;
    double lower = 0.0, upper = 0.0, beta_power = 0.0;
    bool eps_inside_sqrt = false, amsgrad = false, adabound = false;
};

class Kernels {
public:
    virtual ~Kernels() = default;

    // dst = src cast to dst's dtype; same shape.
    virtual void copy(const Array& src, const Array& dst) = 0;
    // Every element of dst = value cast to dst's dtype.
    virtual void fill(const Array& dst, Scalar value) = 0;
    // out = op(x); same shape; same dtype except predicates (bool out).
    virtual void unary(UnaryOp op, const Array& x, const Array& out) = 0;
    // out = op(a, b); a and b have out's shape (broadcast views) and one dtype; out has
    // that dtype, or bool for predicates.
    virtual void binary(BinaryOp op, const Array& a, const Array& b, const Array& out) = 0;
    // out = op(a, s), or op(s, a) when `reversed`; s is cast to a's dtype first.
    virtual void binary_scalar(BinaryOp op, const Array& a, Scalar s, bool reversed, const Array& out) = 0;
    // out = cond ? a : b; cond bool; a, b, out one dtype; all of out's shape.
    virtual void where(const Array& cond, const Array& a, const Array& b, const Array& out) = 0;
    // out (x's shape with `axes` set to 1) = reduction of x over `axes` (non-empty, sorted).
    // x and out have one dtype, bool for kAny/kAll. kMax/kMin propagate NaN; size-0
    // reductions give the identity (ops reject kMax/kMin on them).
    virtual void reduce(ReduceOp op, const Array& x, const Axes& axes, const Array& out) = 0;
    // out (int64, x's shape with axis set to 1) = index of the first max/min along axis
    // (NaN counts as the extreme); x.shape[axis] > 0.
    virtual void arg_reduce(ArgReduceOp op, const Array& x, int axis, const Array& out) = 0;
    // out = inclusive prefix sum of x along axis; same shape and dtype.
    virtual void cumsum(const Array& x, int axis, const Array& out) = 0;
    virtual void gemm(const GemmArgs& args) = 0;
    virtual void take(const TakeArgs& args) = 0;
    virtual void scatter_add(const ScatterAddArgs& args) = 0;
    virtual void random(const RandomArgs& args) = 0;
    virtual void sort(const SortArgs& args) = 0;
    virtual void convolution(const ConvolutionArgs& args) = 0;
    virtual void convolution_backward_data(const ConvolutionBackwardDataArgs& args) = 0;
    virtual void convolution_backward_filter(const ConvolutionBackwardFilterArgs& args) = 0;
    virtual void pool(const PoolArgs& args) = 0;
    virtual void pool_backward(const PoolBackwardArgs& args) = 0;
    virtual void softmax(const SoftmaxArgs& args) = 0;
    virtual void batch_norm(const BatchNormArgs& args) = 0;
    virtual void batch_norm_backward(const BatchNormBackwardArgs& args) = 0;
    virtual void optimizer_step(const OptimizerStepArgs& args) = 0;
    // Several optimizer_step updates at once, with the same result as calling
    // optimizer_step on each in order. Rules, dtypes, shapes and scalars may differ; no two
    // steps share a written array (param or state; a shared grad is fine). GPUs fuse them
    // into few launches (multi-tensor apply).
    virtual void optimizer_step_multi(std::span<const OptimizerStepArgs> steps) = 0;
};

}  // namespace rensa
