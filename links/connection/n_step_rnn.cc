#include "links/connection/n_step_rnn.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>

#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/array.h"
#include "links/initializers.h"

namespace rensa::links {
namespace {

const char* kind_name(NStepKind kind, bool bidirectional) {
    switch (kind) {
        case NStepKind::kRNNTanh:
            return bidirectional ? "NStepBiRNNTanh" : "NStepRNNTanh";
        case NStepKind::kRNNReLU:
            return bidirectional ? "NStepBiRNNReLU" : "NStepRNNReLU";
        case NStepKind::kGRU:
            return bidirectional ? "NStepBiGRU" : "NStepGRU";
        case NStepKind::kLSTM:
            return bidirectional ? "NStepBiLSTM" : "NStepLSTM";
    }
    return "NStepRNN";
}

int weights_of(NStepKind kind) {
    switch (kind) {
        case NStepKind::kRNNTanh:
        case NStepKind::kRNNReLU:
            return 2;
        case NStepKind::kGRU:
            return 6;
        case NStepKind::kLSTM:
            return 8;
    }
    return 0;
}

// Chainer's argsort_list_descent (stable here, so equal lengths keep their order).
std::vector<int64_t> argsort_by_length_descending(const std::vector<Variable>& xs) {
    std::vector<int64_t> order(xs.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return xs[a].shape()[0] > xs[b].shape()[0]; });
    return order;
}

// "w3", "b0", ... (appended, not "w" + ...: GCC 12 warns -Wrestrict on that).
std::string param_name(char prefix, int j) {
    std::string name(1, prefix);
    name += std::to_string(j);
    return name;
}

// y[:, i] = x[:, indices[i]] (Chainer's permutate along axis 1).
Variable permute_axis1(const Variable& x, const std::vector<int64_t>& indices) {
    const Array index = Array::from_vector(indices, Shape{static_cast<int64_t>(indices.size())}, x.device());
    return F::get_item(x, {Slice{}, index});
}

}  // namespace

// --- NStepRNNLayer.

NStepRNNLayer::NStepRNNLayer(int n_weights, std::optional<int64_t> in_size, int64_t out_size,
                             const initializers::InitializerPtr& initialW,
                             const initializers::InitializerPtr& initial_bias)
    : n_weights_{n_weights} {
    for (int j = 0; j < n_weights; ++j) {
        const bool on_input = j < n_weights / 2;
        std::optional<Shape> shape;
        if (!on_input) {
            shape = Shape{out_size, out_size};
        } else if (in_size) {
            shape = Shape{out_size, *in_size};
        }
        add_param(param_name('w', j), Parameter(initialW, shape));
        add_param(param_name('b', j), Parameter(initial_bias, Shape{out_size}));
    }
}

std::vector<Variable> NStepRNNLayer::ws() const {
    std::vector<Variable> out;
    for (int j = 0; j < n_weights_; ++j) out.push_back(param(param_name('w', j)));
    return out;
}

std::vector<Variable> NStepRNNLayer::bs() const {
    std::vector<Variable> out;
    for (int j = 0; j < n_weights_; ++j) out.push_back(param(param_name('b', j)));
    return out;
}

// --- NStepRNNBase.

NStepRNNBase::NStepRNNBase(NStepKind kind, bool bidirectional, int n_layers, std::optional<int64_t> in_size,
                           int64_t out_size, double dropout, const NStepRNNOptions& options)
    : kind_{kind}, n_layers_{n_layers}, out_size_{out_size}, dropout_{dropout}, direction_{bidirectional ? 2 : 1} {
    const char* name = kind_name(kind, bidirectional);
    RENSA_CHECK(n_layers >= 1, ValueError, name, ": n_layers=", n_layers, " must be >= 1");
    RENSA_CHECK(out_size >= 1, ValueError, name, ": out_size=", out_size, " must be >= 1");
    RENSA_CHECK(!in_size || *in_size >= 1, ValueError, name, ": in_size=", in_size.value_or(0), " must be >= 1");
    RENSA_CHECK(dropout >= 0.0 && dropout < 1.0, ValueError, name, ": dropout=", dropout, " must be in [0, 1)");
    const auto w_init = initializers::or_default(options.initialW, std::make_shared<initializers::LeCunNormal>());
    const auto b_init = initializers::or_default(options.initial_bias, initializers::constant(0));
    for (int layer = 0; layer < n_layers; ++layer) {
        const std::optional<int64_t> layer_in = layer == 0 ? in_size : std::optional{out_size * direction_};
        for (int d = 0; d < direction_; ++d) {
            add_link(std::make_shared<NStepRNNLayer>(weights_of(kind), layer_in, out_size, w_init, b_init));
        }
    }
}

int NStepRNNBase::n_weights() const { return weights_of(kind_); }

std::vector<const NStepRNNLayer*> NStepRNNBase::layers() {
    std::vector<const NStepRNNLayer*> out;
    for (Link* child : children()) {
        const auto* layer = dynamic_cast<const NStepRNNLayer*>(child);
        RENSA_CHECK(layer != nullptr, ValueError, kind_name(kind_, direction_ == 2), ": child '", child->name(),
                    "' is not an NStepRNNLayer (links appended to an n-step RNN are not supported)");
        out.push_back(layer);
    }
    return out;
}

std::vector<std::vector<Variable>> NStepRNNBase::ws() {
    std::vector<std::vector<Variable>> out;
    for (const NStepRNNLayer* layer : layers()) out.push_back(layer->ws());
    return out;
}

std::vector<std::vector<Variable>> NStepRNNBase::bs() {
    std::vector<std::vector<Variable>> out;
    for (const NStepRNNLayer* layer : layers()) out.push_back(layer->bs());
    return out;
}

Variable NStepRNNBase::init_hx(const std::vector<Variable>& xs) const {
    const Shape shape{int64_t{n_layers_} * direction_, static_cast<int64_t>(xs.size()), out_size_};
    return Variable(ops::zeros(shape, xs.at(0).dtype(), device_), false);
}

// The first layer's matrices on x learn in_size from xs[0] (Chainer's lazy links).
void NStepRNNBase::initialize_lazy(const std::vector<Variable>& xs) {
    const std::vector<const NStepRNNLayer*> first = layers();
    for (int d = 0; d < direction_; ++d) {
        for (int j = 0; j < n_weights() / 2; ++j) {
            const Parameter& w = first[d]->param(param_name('w', j));
            if (!w.is_initialized()) w.initialize(Shape{out_size_, xs[0].shape()[1]});
        }
    }
}

std::pair<std::vector<Variable>, std::vector<Variable>> NStepRNNBase::call(std::vector<Variable> hs,
                                                                           const std::vector<Variable>& xs) {
    const char* name = kind_name(kind_, direction_ == 2);
    RENSA_CHECK(!xs.empty(), ValueError, name, ": xs must not be empty");
    for (const Variable& x : xs) {
        RENSA_CHECK(x.defined() && x.ndim() == 2, DimensionError, name, ": every xs[i] must be 2-d (L_i, in_size)");
        RENSA_CHECK(x.shape()[0] > 0, ValueError, name,
                    ": Expect: every xs[i].shape[0] > 0, Actual: a sequence of shape ", x.shape());
    }
    initialize_lazy(xs);
    const std::vector<int64_t> order = argsort_by_length_descending(xs);
    const bool sorted = std::is_sorted(order.begin(), order.end());
    std::vector<Variable> sorted_xs;
    for (int64_t i : order) sorted_xs.push_back(xs[i]);
    for (Variable& h : hs) {
        if (!h.defined()) {
            h = init_hx(xs);
            continue;
        }
        RENSA_CHECK(h.ndim() == 3 && h.shape()[1] == static_cast<int64_t>(xs.size()), DimensionError, name,
                    ": initial states must have shape (n_layers * direction, len(xs)=", xs.size(), ", ", out_size_,
                    "), got ", h.shape());
        if (!sorted) h = permute_axis1(h, order);
    }
    auto [hys, sorted_ys] = run(hs, sorted_xs);
    std::vector<int64_t> inverse(order.size());
    for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int64_t>(i);
    if (!sorted) {
        for (Variable& h : hys) h = permute_axis1(h, inverse);
    }
    std::vector<Variable> ys;
    for (int64_t i : inverse) ys.push_back(sorted_ys[i]);
    return {std::move(hys), std::move(ys)};
}

// Chainer's _call after the sort: the functions take time steps, so the sorted sequences go
// through F::transpose_sequence on the way in and the outputs on the way out.
std::pair<std::vector<Variable>, std::vector<Variable>> NStepRNNBase::run(const std::vector<Variable>& hs,
                                                                          const std::vector<Variable>& sequences) {
    const bool bi = direction_ == 2;
    const auto w = ws(), b = bs();
    const std::vector<Variable> xs = F::transpose_sequence(sequences);
    switch (kind_) {
        case NStepKind::kLSTM: {
            F::NStepLSTMResult r = bi ? F::n_step_bilstm(n_layers_, dropout_, hs[0], hs[1], w, b, xs)
                                      : F::n_step_lstm(n_layers_, dropout_, hs[0], hs[1], w, b, xs);
            return {{r.hy, r.cy}, F::transpose_sequence(r.ys)};
        }
        case NStepKind::kGRU: {
            auto [hy, ys] = bi ? F::n_step_bigru(n_layers_, dropout_, hs[0], w, b, xs)
                               : F::n_step_gru(n_layers_, dropout_, hs[0], w, b, xs);
            return {{hy}, F::transpose_sequence(ys)};
        }
        case NStepKind::kRNNTanh:
        case NStepKind::kRNNReLU: {
            const std::string activation = kind_ == NStepKind::kRNNTanh ? "tanh" : "relu";
            auto [hy, ys] = bi ? F::n_step_birnn(n_layers_, dropout_, hs[0], w, b, xs, activation)
                               : F::n_step_rnn(n_layers_, dropout_, hs[0], w, b, xs, activation);
            return {{hy}, F::transpose_sequence(ys)};
        }
    }
    RENSA_THROW(ValueError, "NStepRNN: unknown kind");
}

}  // namespace rensa::links
