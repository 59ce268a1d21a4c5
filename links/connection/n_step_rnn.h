#pragma once
// Chainer's stacked RNN links over variable-length sequences: NStepRNNTanh, NStepRNNReLU,
// NStepBiRNNTanh, NStepBiRNNReLU, NStepGRU, NStepBiGRU, NStepLSTM and NStepBiLSTM.
//
// Parameter layout as in Chainer (so NPZ keys agree): a ChainList of n_layers * directions
// children ("0", "1", ...; layer-major, forward before backward direction), each holding
// w0..w{n-1} and b0..b{n-1} (n = 2 for the plain RNNs, 6 for GRU, 8 for LSTM). wj is
// (out_size, in) for the first n/2 matrices, in = in_size on the first layer and
// directions * out_size above it, and (out_size, out_size) for the others; bj is (out_size,).
//
// Unlike the F::n_step_* functions, which take time steps, the links take a list of
// sequences (L_i, in_size), L_i > 0, in any order: they sort them by decreasing length,
// permute hx (and cx) to match, transpose the sequences into time steps
// (F::transpose_sequence), and undo all three on the outputs.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "functions/connection.h"
#include "links/chain.h"
#include "links/initializer.h"

namespace rensa::links {

// Chainer's keyword arguments initialW (null: LeCunNormal) and initial_bias (null: zeros).
struct NStepRNNOptions {
    initializers::InitializerPtr initialW{};
    initializers::InitializerPtr initial_bias{};
};

// One layer and direction: the parameters w0.., b0.. (Chainer builds a plain Link for it).
// in_size nullopt leaves the first n_weights / 2 matrices uninitialised until the first forward.
class NStepRNNLayer : public Cloneable<NStepRNNLayer> {
public:
    NStepRNNLayer(int n_weights, std::optional<int64_t> in_size, int64_t out_size,
                  const initializers::InitializerPtr& initialW, const initializers::InitializerPtr& initial_bias);
    int n_weights() const { return n_weights_; }
    // [w0, w1, ...] and [b0, b1, ...] (handles on the parameters).
    std::vector<Variable> ws() const;
    std::vector<Variable> bs() const;

private:
    int n_weights_;
};

enum class NStepKind { kRNNTanh, kRNNReLU, kGRU, kLSTM };

// What every n-step link shares (Chainer's NStepRNNBase): the layers as children, the
// sorting of the sequences and the call of the F::n_step_* function of its kind.
class NStepRNNBase : public ChainList {
public:
    int n_layers() const { return n_layers_; }
    int64_t out_size() const { return out_size_; }
    double dropout() const { return dropout_; }
    int direction() const { return direction_; }  // 2 when bidirectional
    int n_weights() const;                        // matrices per layer and direction
    // Chainer's ws / bs: [child][j] handles on wj / bj, read from the children at each call.
    std::vector<std::vector<Variable>> ws();
    std::vector<std::vector<Variable>> bs();
    // Zeros of shape (n_layers * direction, len(xs), out_size), xs[0]'s dtype, on the link's device.
    [[nodiscard]] Variable init_hx(const std::vector<Variable>& xs) const;

protected:
    // Throws ValueError for n_layers or out_size < 1, in_size < 1 or dropout outside [0, 1).
    NStepRNNBase(NStepKind kind, bool bidirectional, int n_layers, std::optional<int64_t> in_size, int64_t out_size,
                 double dropout, const NStepRNNOptions& options);
    NStepRNNBase(const NStepRNNBase&) = default;

    // Chainer's _call: hs = {hx} or {hx, cx}, each undefined (zeros) or (S, len(xs), out_size);
    // xs in any order. Returns the final states (as hs) and ys, in the caller's order.
    std::pair<std::vector<Variable>, std::vector<Variable>> call(std::vector<Variable> hs,
                                                                 const std::vector<Variable>& xs);

private:
    std::vector<const NStepRNNLayer*> layers();  // the children; ValueError for a foreign one
    void initialize_lazy(const std::vector<Variable>& xs);
    std::pair<std::vector<Variable>, std::vector<Variable>> run(const std::vector<Variable>& hs,
                                                                const std::vector<Variable>& sequences);

    NStepKind kind_;
    int n_layers_;
    int64_t out_size_;
    double dropout_;
    int direction_;
};

// The links returning {hy, ys}: plain RNNs and GRUs.
template <class Derived, NStepKind Kind, bool Bidirectional>
class NStepRNNWithoutCell : public Cloneable<Derived, NStepRNNBase> {
public:
    // Chainer's (n_layers, in_size, out_size, dropout, initialW, initial_bias); in_size
    // nullopt: learnt from xs at the first forward.
    NStepRNNWithoutCell(int n_layers, std::optional<int64_t> in_size, int64_t out_size, double dropout,
                        const NStepRNNOptions& options = {})
        : Cloneable<Derived, NStepRNNBase>(Kind, Bidirectional, n_layers, in_size, out_size, dropout, options) {}

    using Link::forward;
    // hx: (n_layers * direction, len(xs), out_size) or undefined (zeros); xs[i]: (L_i, in_size).
    // Returns hy (hx's shape) and ys[i]: (L_i, direction * out_size).
    std::pair<Variable, std::vector<Variable>> forward(const Variable& hx, const std::vector<Variable>& xs) {
        auto [hs, ys] = this->call({hx}, xs);
        return {hs[0], std::move(ys)};
    }
    std::pair<Variable, std::vector<Variable>> operator()(const Variable& hx, const std::vector<Variable>& xs) {
        return forward(hx, xs);
    }
};

// The links returning {hy, cy, ys}: LSTMs.
template <class Derived, bool Bidirectional>
class NStepLSTMBase : public Cloneable<Derived, NStepRNNBase> {
public:
    NStepLSTMBase(int n_layers, std::optional<int64_t> in_size, int64_t out_size, double dropout,
                  const NStepRNNOptions& options = {})
        : Cloneable<Derived, NStepRNNBase>(NStepKind::kLSTM, Bidirectional, n_layers, in_size, out_size, dropout,
                                           options) {}

    using Link::forward;
    // hx, cx: (n_layers * direction, len(xs), out_size) or undefined (zeros); xs in any order.
    F::NStepLSTMResult forward(const Variable& hx, const Variable& cx, const std::vector<Variable>& xs) {
        auto [hs, ys] = this->call({hx, cx}, xs);
        return {hs[0], hs[1], std::move(ys)};
    }
    F::NStepLSTMResult operator()(const Variable& hx, const Variable& cx, const std::vector<Variable>& xs) {
        return forward(hx, cx, xs);
    }
};

class NStepRNNTanh : public NStepRNNWithoutCell<NStepRNNTanh, NStepKind::kRNNTanh, false> {
public:
    using NStepRNNWithoutCell::NStepRNNWithoutCell;
};
class NStepRNNReLU : public NStepRNNWithoutCell<NStepRNNReLU, NStepKind::kRNNReLU, false> {
public:
    using NStepRNNWithoutCell::NStepRNNWithoutCell;
};
class NStepBiRNNTanh : public NStepRNNWithoutCell<NStepBiRNNTanh, NStepKind::kRNNTanh, true> {
public:
    using NStepRNNWithoutCell::NStepRNNWithoutCell;
};
class NStepBiRNNReLU : public NStepRNNWithoutCell<NStepBiRNNReLU, NStepKind::kRNNReLU, true> {
public:
    using NStepRNNWithoutCell::NStepRNNWithoutCell;
};
class NStepGRU : public NStepRNNWithoutCell<NStepGRU, NStepKind::kGRU, false> {
public:
    using NStepRNNWithoutCell::NStepRNNWithoutCell;
};
class NStepBiGRU : public NStepRNNWithoutCell<NStepBiGRU, NStepKind::kGRU, true> {
public:
    using NStepRNNWithoutCell::NStepRNNWithoutCell;
};
class NStepLSTM : public NStepLSTMBase<NStepLSTM, false> {
public:
    using NStepLSTMBase::NStepLSTMBase;
};
class NStepBiLSTM : public NStepLSTMBase<NStepBiLSTM, true> {
public:
    using NStepLSTMBase::NStepLSTMBase;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
