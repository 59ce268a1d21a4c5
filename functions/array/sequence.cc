// pad_sequence and transpose_sequence over lists of variable-length sequences (L_i, ...).

#include <algorithm>
#include <memory>

#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

class PadSequence : public FunctionNode {
public:
    PadSequence(int64_t length, Scalar padding) : length_{length}, padding_{padding} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        Shape shape = xs[0].shape();
        shape[0] = length_;
        shape.insert(0, static_cast<int64_t>(xs.size()));
        const Array out = ops::full(shape, padding_, xs[0].dtype(), xs[0].device());
        for (size_t i = 0; i < xs.size(); ++i) {
            out.index({static_cast<int64_t>(i), Slice{0, xs[i].shape()[0]}}).assign(xs[i]);
        }
        return {out};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        for (size_t i = 0; i < inputs().size(); ++i) {
            const int64_t len = input_shape(static_cast<int>(i))[0];
            gxs.push_back(get_item(gys[0], {static_cast<int64_t>(i), Slice{0, len}}));
        }
        return gxs;
    }
    std::string label() const override { return "PadSequence"; }

private:
    int64_t length_;
    Scalar padding_;
};

// Sequences (sorted by decreasing length) <-> time steps: output t stacks x_i[t] for every
// i with L_i > t. Applied to the time steps it gives the sequences back, so it is its own
// backward; `num_outputs` restores sequences of length 0, which no time step mentions.
class TransposeSequence : public FunctionNode {
public:
    explicit TransposeSequence(size_t num_outputs) : num_outputs_{num_outputs} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        std::vector<Array> ys;
        for (int64_t t = 0; t < static_cast<int64_t>(num_outputs_); ++t) {
            std::vector<Array> rows;
            for (const Array& x : xs) {
                if (x.shape()[0] > t) rows.push_back(x.index({Slice{t, t + 1}}));
            }
            if (rows.empty()) {  // a sequence of length 0
                Shape shape = xs[0].shape();
                shape[0] = 0;
                ys.push_back(Array::empty(shape, xs[0].dtype(), xs[0].device()));
            } else {
                ys.push_back(ops::concatenate(rows, 0));
            }
        }
        return ys;
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        std::vector<Variable> gs;
        for (size_t t = 0; t < gys.size(); ++t) {
            gs.push_back(array_detail::or_zeros(gys[t], step_shape(t), input_dtype(0), inputs()[0]->device()));
        }
        return std::make_shared<TransposeSequence>(inputs().size())->apply(gs);
    }
    std::string label() const override { return "TransposeSequence"; }

private:
    Shape step_shape(size_t t) const {
        Shape shape = input_shape(0);
        shape[0] = 0;
        for (size_t i = 0; i < inputs().size(); ++i)
            shape[0] += input_shape(static_cast<int>(i))[0] > static_cast<int64_t>(t);
        return shape;
    }
    size_t num_outputs_;
};

void check_sequences(std::string_view op, const std::vector<Variable>& xs) {
    array_detail::check_nonempty_same_dtype(op, xs);
    for (size_t i = 0; i < xs.size(); ++i) {
        RENSA_CHECK(xs[i].ndim() >= 1, DimensionError, op, ": Expect: xs[", i, "].ndim >= 1, Actual: 0");
        Shape a = xs[i].shape(), b = xs[0].shape();
        a[0] = b[0] = 0;
        RENSA_CHECK(a == b && xs[i].ndim() == xs[0].ndim(), DimensionError, op, ": Expect: xs[", i,
                    "].shape[1:] == xs[0].shape[1:], Actual: shapes ", xs[i].shape(), " and ", xs[0].shape());
    }
}

}  // namespace

Variable pad_sequence(const std::vector<Variable>& xs, std::optional<int64_t> length, Scalar padding) {
    check_sequences("pad_sequence", xs);
    int64_t longest = 0;
    for (const Variable& x : xs) longest = std::max(longest, x.shape()[0]);
    RENSA_CHECK(!length || *length >= longest, ValueError, "pad_sequence: length = ", length.value_or(0),
                " is shorter than the longest sequence (", longest, ")");
    return std::make_shared<PadSequence>(length.value_or(longest), padding)->apply(xs)[0];
}

std::vector<Variable> transpose_sequence(const std::vector<Variable>& xs) {
    if (xs.empty()) return {};
    check_sequences("transpose_sequence", xs);
    for (size_t i = 1; i < xs.size(); ++i) {
        RENSA_CHECK(xs[i].shape()[0] <= xs[i - 1].shape()[0], ValueError,
                    "transpose_sequence: xs must be sorted by decreasing length, but xs[", i - 1, "] has length ",
                    xs[i - 1].shape()[0], " and xs[", i, "] has length ", xs[i].shape()[0]);
    }
    const int64_t steps = xs[0].shape()[0];
    if (steps == 0) return {};
    return std::make_shared<TransposeSequence>(static_cast<size_t>(steps))->apply(xs);
}

}  // namespace rensa::functions
