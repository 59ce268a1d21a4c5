#pragma once
// Chainer's connection functions (F::...). See functions/functions.h for the family list.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "functions/connection/convolution.h"  // IWYU pragma: export

namespace rensa::functions {

// y = x W^T + b, x reshaped to (prod(x.shape[:n_batch_axes]), rest); W (out, in), b (out,) or
// undefined (None). y has shape x.shape[:n_batch_axes] + (out,). Throws DimensionError /
// DtypeError on mismatched shapes or dtypes. Differentiable any number of times.
[[nodiscard]] Variable linear(const Variable& x, const Variable& W, const Variable& b = {}, int n_batch_axes = 1);

// y = W[x]: rows of W (n_vocab, n_units) at the integer ids x, shape x.shape + (n_units,).
// Ids equal to ignore_label give zero rows and no gradient; any other id outside
// [0, n_vocab) throws ValueError naming the id and its position. Double-differentiable in W.
[[nodiscard]] Variable embed_id(const Variable& x, const Variable& W,
                                std::optional<int64_t> ignore_label = std::nullopt);

// y[n, l] = sum_jk e1[n, j] e2[n, k] W[j, k, l] (+ e1 V1 + e2 V2 + b): e1 (N, J), e2 (N, K)
// (more axes are flattened), W (J, K, L), V1 (J, L), V2 (K, L), b (L,). V1, V2 and b are
// all given or all undefined (ValueError otherwise). Differentiable any number of times.
[[nodiscard]] Variable bilinear(const Variable& e1, const Variable& e2, const Variable& W, const Variable& V1 = {},
                                const Variable& V2 = {}, const Variable& b = {});

// --- Chainer's n-step RNNs, with Chainer's time-major contract: xs[t] (B_t, in) holds the
// inputs at time t of the sequences still running, B_t non-increasing (F::transpose_sequence
// of sequences sorted by decreasing length); hx (and cx): (n_layers * directions, B, units),
// B >= B_0; ws[l] / bs[l]: the matrices / biases of layer l (layer-major, forward before
// backward direction when bidirectional): (units, in) on x, (units, units) on h, in is the
// layer's input width (2 * units above the first layer when bidirectional). ys[t]: (B_t,
// directions * units); hy / cy hold each sequence's last state (rows of sequences shorter
// than the batch stop changing when they end). Dropout with dropout_ratio on the inputs of
// every layer but the first (training only). DimensionError / ValueError on bad arguments.
// Differentiable any number of times.
struct NStepLSTMResult {
    Variable hy, cy;
    std::vector<Variable> ys;
};
// ws[l][0..3] / [4..7]: input, forget, cell and output gates on x / on h.
[[nodiscard]] NStepLSTMResult n_step_lstm(int n_layers, double dropout_ratio, const Variable& hx, const Variable& cx,
                                          const std::vector<std::vector<Variable>>& ws,
                                          const std::vector<std::vector<Variable>>& bs,
                                          const std::vector<Variable>& xs);
[[nodiscard]] NStepLSTMResult n_step_bilstm(int n_layers, double dropout_ratio, const Variable& hx, const Variable& cx,
                                            const std::vector<std::vector<Variable>>& ws,
                                            const std::vector<std::vector<Variable>>& bs,
                                            const std::vector<Variable>& xs);
// ws[l][0..2] / [3..5]: reset gate, update gate and new memory on x / on h. Returns {hy, ys}.
[[nodiscard]] std::pair<Variable, std::vector<Variable>> n_step_gru(int n_layers, double dropout_ratio,
                                                                    const Variable& hx,
                                                                    const std::vector<std::vector<Variable>>& ws,
                                                                    const std::vector<std::vector<Variable>>& bs,
                                                                    const std::vector<Variable>& xs);
[[nodiscard]] std::pair<Variable, std::vector<Variable>> n_step_bigru(int n_layers, double dropout_ratio,
                                                                      const Variable& hx,
                                                                      const std::vector<std::vector<Variable>>& ws,
                                                                      const std::vector<std::vector<Variable>>& bs,
                                                                      const std::vector<Variable>& xs);
// h = activation(W0 x + b0 + W1 h + b1), activation "tanh" or "relu" (ValueError otherwise).
// Returns {hy, ys}.
[[nodiscard]] std::pair<Variable, std::vector<Variable>> n_step_rnn(int n_layers, double dropout_ratio,
                                                                    const Variable& hx,
                                                                    const std::vector<std::vector<Variable>>& ws,
                                                                    const std::vector<std::vector<Variable>>& bs,
                                                                    const std::vector<Variable>& xs,
                                                                    const std::string& activation = "tanh");
[[nodiscard]] std::pair<Variable, std::vector<Variable>> n_step_birnn(int n_layers, double dropout_ratio,
                                                                      const Variable& hx,
                                                                      const std::vector<std::vector<Variable>>& ws,
                                                                      const std::vector<std::vector<Variable>>& bs,
                                                                      const std::vector<Variable>& xs,
                                                                      const std::string& activation = "tanh");

// --- Chainer's dilated_convolution_2d (issue 21): convolution_2d with a dilation. Its
// keyword arguments in Chainer's order.
struct DilatedConvolutionOptions {
    IntOrTuple stride = 1;
    IntOrTuple pad = 0;
    IntOrTuple dilate = 1;
    bool cover_all = false;
};
// x (n, c_in, h, w), W (c_out, c_in, kh, kw), b (c_out) or undefined: convolution_2d(x, W, b,
// {.stride, .pad, .cover_all, .dilate}), errors named dilated_convolution_2d.
[[nodiscard]] Variable dilated_convolution_2d(const Variable& x, const Variable& W, const Variable& b = {},
                                              const DilatedConvolutionOptions& options = {});

// --- Chainer's local, shifted and deformable convolutions (issue 23).
// Locally connected 2-D convolution: x (n, c_in, h, w), W (c_out, out_h, out_w, c_in, kh, kw)
// holds one filter per output position, b (c_out, out_h, out_w) or undefined. y[:, :, i, j]
// = W[:, i, j] . x[:, :, i * sy : i * sy + kh, j * sx : j * sx + kw] + b[:, i, j]; no padding.
// DtypeError when the dtypes differ, DimensionError when the channels differ or a window of
// W's output positions leaves x. Differentiable any number of times.
[[nodiscard]] Variable local_convolution_2d(const Variable& x, const Variable& W, const Variable& b = {},
                                            IntOrTuple stride = 1);
// Chainer's shift: x (n, c, h, w) split into kh * kw channel groups (the last one takes the
// remainder), group g translated by its window offset ((g / kw - kh / 2) * dy, (g % kw - kw /
// 2) * dx), the centre offset given to the last group; zeros fill in. ksize odd (ValueError),
// dilate non-zero (negative shifts the other way), c >= kh * kw (DimensionError). Linear, so
// differentiable any number of times.
[[nodiscard]] Variable shift(const Variable& x, IntOrTuple ksize = 3, IntOrTuple dilate = 1);
// Deformable convolution: x (n, c_in, h, w), offset (n, 2 * kh * kw, out_h, out_w) (horizontal
// offsets of the kh * kw taps first, then vertical), W (c_out, c_in, kh, kw), b (c_out) or
// undefined. Tap (ky, kx) of output (i, j) samples the zero-padded x bilinearly at (i * sy +
// ky + offset_y, j * sx + kx + offset_x) (zero outside), as Chainer. Differentiable any number
// of times where no sample lies on a pixel boundary.
[[nodiscard]] Variable deformable_convolution_2d_sampler(const Variable& x, const Variable& offset, const Variable& W,
                                                         const Variable& b = {}, IntOrTuple stride = 1,
                                                         IntOrTuple pad = 0);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
