#pragma once
// The backend contract: every device implements this pure-virtual interface, so a
// missing kernel is a compile error. core/ops validate arguments, allocate outputs
// and call these; kernels may assume what each comment promises and never re-check.
// Operands may be non-contiguous (strides in bytes, possibly zero or negative)
// unless a comment says otherwise, and are all on the kernel's device.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

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

// --- Region-of-interest pooling (Chainer's roi_* functions; the geometry of each mode is
// core/roi_geometry.h, Note [ROI geometry]). x (n, c, h, w) -> y (r, c, out_h, out_w), one
// (out_h, out_w) grid of bins per roi. rois (r, 4) are float64 rows (y_min, x_min, y_max,
// x_max), except kLegacyMax (roi_pooling_2d): (r, 5) rows (batch, x_min, y_min, x_max, y_max)
// whose batch column is ignored here. roi_indices is int32 (r,) in [0, n). Every array is
// contiguous. The max modes write int64 `indices` of y's shape (kLegacyMax, kMax: flat
// position in the (h, w) plane; kMaxAlign: the sample iy * grid_w + ix; -1 for an empty bin).
// sampling_h/w: samples per bin of the align modes, 0 for Chainer's adaptive ceil(size / out).
enum class RoiMode : uint8_t { kLegacyMax, kMax, kAverage, kMaxAlign, kAverageAlign };
struct RoiPoolArgs {
    RoiMode mode = RoiMode::kMax;
    Array x, rois, roi_indices;
    double spatial_scale = 1.0;
    int64_t sampling_h = 0, sampling_w = 0;
    Array y, indices;
};
// Adds the gradient of every roi's bins into gx_acc ((n, c, h, w), contiguous, float32 for
// float16/bfloat16/float32 gy, float64 for float64; the caller zero-fills it); gy is
// contiguous with y's shape; rois, roi_indices and indices are the forward's.
struct RoiPoolBackwardArgs {
    RoiMode mode = RoiMode::kMax;
    Array gy, rois, roi_indices, indices;
    double spatial_scale = 1.0;
    int64_t sampling_h = 0, sampling_w = 0;
    Array gx_acc;
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

// --- Fused updates: one pass over param, grad and up to kUpdateMaxStates state arrays that
// runs a small elementwise program on every element (Kernels::fused_update). Core knows no
// rule: each optimizer writes its formula as an UpdateProgram (see Note [Fused updates] in
// optimizers/optimizer.h).
//
// Note [Update programs]: an UpdateProgram is a list of at most kUpdateMaxInstructions
// instructions run in order on every element, over per-element registers and per-step
// scalars. Registers: param (kUpdateParam, read and written), grad (kUpdateGrad, read only),
// the states kUpdateState0 + i (i < n_states; loaded, then stored like param) and the
// temporaries kUpdateTemp0 + i (written before read). An operand >= kUpdateScalar0 names
// scalar (operand - kUpdateScalar0) of the step (i < n_scalars), cast to the compute type.
// Each instruction computes in the compute type (float for float16/bfloat16, else the
// dtype) with one IEEE rounding per arithmetic operation of the expression in its comment
// (kMulAdd is a * b + c with two roundings, never an FMA), so a program gives the same bits
// on every backend and CPU. Backends: the native one runs each
// instruction as one vectorised loop over a cache-sized block of elements; CUDA interprets
// the program per element inside one multi-tensor launch.
enum class UpdateOp : uint8_t {
    kCopy,    // dst = a
    kAdd,     // dst = a + b
    kSub,     // dst = a - b
    kMul,     // dst = a * b
    kDiv,     // dst = a / b
    kMin,     // dst = b < a ? b : a (std::min: a NaN in a stays, one in b does not)
    kMax,     // dst = a < b ? b : a (std::max)
    kSqrt,    // dst = sqrt(a)
    kMulAdd,  // dst = a * b + c
    kMulSub,  // dst = a * b - c
    kSubMul,  // dst = c - a * b
};
// The number of operands (1 to 3) of `op`.
constexpr int update_op_arity(UpdateOp op) {
    switch (op) {
        case UpdateOp::kCopy:
        case UpdateOp::kSqrt:
            return 1;
        case UpdateOp::kAdd:
        case UpdateOp::kSub:
        case UpdateOp::kMul:
        case UpdateOp::kDiv:
        case UpdateOp::kMin:
        case UpdateOp::kMax:
            return 2;
        case UpdateOp::kMulAdd:
        case UpdateOp::kMulSub:
        case UpdateOp::kSubMul:
            return 3;
    }
    return 0;  // an op outside the enum (a cast from a bad byte)
}

inline constexpr int kUpdateMaxStates = 3;
inline constexpr int kUpdateMaxTemps = 6;
inline constexpr int kUpdateMaxScalars = 12;
inline constexpr int kUpdateMaxInstructions = 24;
inline constexpr uint8_t kUpdateParam = 0;
inline constexpr uint8_t kUpdateGrad = 1;
inline constexpr uint8_t kUpdateState0 = 2;
inline constexpr uint8_t kUpdateTemp0 = kUpdateState0 + kUpdateMaxStates;
inline constexpr uint8_t kUpdateRegisters = kUpdateTemp0 + kUpdateMaxTemps;
inline constexpr uint8_t kUpdateScalar0 = 16;

// dst = op(a, b, c); the operands past the op's arity are ignored.
struct UpdateInstruction {
    UpdateOp op = UpdateOp::kCopy;
    uint8_t dst = kUpdateTemp0, a = 0, b = 0, c = 0;
};

struct FusedUpdateArgs;

// A rule's formula; `name` and `state_names` only name things in error messages. Built and
// checked by ops::make_update_program (core/ops/update_program.h). `host`, when set, is the
// same code compiled for the CPU as one fused loop (core/ops/update_host.h, Note [Programs
// compiled for the host]): the native backend runs it on elements [begin, end) of the update
// instead of interpreting `code`, with the same results.
struct UpdateProgram {
    std::string name;
    std::vector<std::string> state_names;  // n_states = state_names.size()
    int n_scalars = 0;
    int size = 0;
    std::array<UpdateInstruction, kUpdateMaxInstructions> code{};
    void (*host)(const FusedUpdateArgs& args, int64_t begin, int64_t end) = nullptr;
    int n_states() const { return static_cast<int>(state_names.size()); }
};

// One fused update. param, grad and the program's n_states states are contiguous, of one
// float dtype and one shape, and do not overlap; the other states are undefined. The
// program is checked (ops::check_update_program) and uses scalars[0, n_scalars).
struct FusedUpdateArgs {
    std::shared_ptr<const UpdateProgram> program;
    Array param{}, grad{};  // {}: designated initializers may leave them out
    std::array<Array, kUpdateMaxStates> states{};
    std::array<double, kUpdateMaxScalars> scalars{};
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
    virtual void roi_pool(const RoiPoolArgs& args) = 0;
    virtual void roi_pool_backward(const RoiPoolBackwardArgs& args) = 0;
    virtual void softmax(const SoftmaxArgs& args) = 0;
    virtual void batch_norm(const BatchNormArgs& args) = 0;
    virtual void batch_norm_backward(const BatchNormBackwardArgs& args) = 0;
    // Runs every update, with the result of running them one by one in order. Programs,
    // dtypes, shapes and scalars may differ; no two updates share a written array (param or
    // state; a shared grad is fine). GPUs fuse them into few launches (multi-tensor apply).
    virtual void fused_update(std::span<const FusedUpdateArgs> updates) = 0;
};

}  // namespace rensa
