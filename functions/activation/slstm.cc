// slstm and tree_lstm: Chainer's S-LSTM cell (two children) and its tree LSTM cell (any
// number of children), as compositions of differentiable pieces, so their gradients and
// double backprop are autograd's.

#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "functions/activation.h"
#include "functions/array.h"

namespace rensa::functions {
namespace {

// The `n` gates of x (batch, n * units, ...): interleaved, x.reshape(batch, units, n, ...)[:, :, k],
// as lstm and slstm cut them, or in blocks, x.reshape(batch, n, units, ...)[:, k], as tree_lstm.
std::vector<Variable> extract_gates(const Variable& x, int64_t n, bool interleaved) {
    const int64_t units = x.shape()[1] / n;
    Shape shape = interleaved ? Shape{x.shape()[0], units, n} : Shape{x.shape()[0], n, units};
    Shape gate_shape{x.shape()[0], units};
    for (int d = 2; d < x.ndim(); ++d) {
        shape.push_back(x.shape()[d]);
        gate_shape.push_back(x.shape()[d]);
    }
    std::vector<Variable> gates = split_axis(reshape(x, shape), n, interleaved ? 2 : 1);
    for (Variable& g : gates) g = reshape(g, gate_shape);
    return gates;
}

// Chainer's checks: one float dtype, c and x of one ndim >= 2 and one batch, x.shape[1] ==
// gates * c.shape[1], the same trailing axes.
void check_cell(const Variable& c, const Variable& x, int64_t gates, const char* function, const std::string& c_name,
                const std::string& x_name) {
    expect_float(c, function, c_name);
    expect_float(x, function, x_name);
    expect_same_dtype(c, x, function, c_name, x_name);
    RENSA_CHECK(x.ndim() >= 2 && c.ndim() == x.ndim(), DimensionError, function, ": Expect: ", c_name,
                ".ndim == ", x_name, ".ndim >= 2, Actual: ", c_name, ".shape ", c.shape(), ", ", x_name, ".shape ",
                x.shape());
    bool fits = x.shape()[0] == c.shape()[0] && x.shape()[1] == gates * c.shape()[1];
    for (int d = 2; d < x.ndim(); ++d) fits = fits && x.shape()[d] == c.shape()[d];
    RENSA_CHECK(fits, DimensionError, function, ": Expect: ", x_name, ".shape == (", c_name, ".shape[0], ", gates,
                " * ", c_name, ".shape[1], *", c_name, ".shape[2:]), Actual: ", x_name, ".shape ", x.shape(), ", ",
                c_name, ".shape ", c.shape());
}

}  // namespace

std::pair<Variable, Variable> slstm(const Variable& c_prev1, const Variable& c_prev2, const Variable& x1,
                                    const Variable& x2) {
    check_cell(c_prev1, x1, 4, "slstm", "c_prev1", "x1");
    check_cell(c_prev2, x2, 4, "slstm", "c_prev2", "x2");
    expect_same_dtype(c_prev1, c_prev2, "slstm", "c_prev1", "c_prev2");
    expect_same_shape(c_prev1, c_prev2, "slstm", "c_prev1", "c_prev2");
    const std::vector<Variable> g1 = extract_gates(x1, 4, true), g2 = extract_gates(x2, 4, true);
    const Variable c = tanh(g1[0]) * sigmoid(g1[1]) + tanh(g2[0]) * sigmoid(g2[1]) + sigmoid(g1[2]) * c_prev1 +
                       sigmoid(g2[2]) * c_prev2;
    return {c, sigmoid(g1[3] + g2[3]) * tanh(c)};
}

std::pair<Variable, Variable> tree_lstm(const std::vector<Variable>& cs, const Variable& x) {
    RENSA_CHECK(!cs.empty(), ValueError, "tree_lstm: Expect: at least one cell state before x, Actual: none");
    const auto n = static_cast<int64_t>(cs.size());
    for (int64_t k = 0; k < n; ++k) check_cell(cs[size_t(k)], x, 3 + n, "tree_lstm", "c" + std::to_string(k), "x");
    const std::vector<Variable> gates = extract_gates(x, 3 + n, false);  // a, i, o, f_1 .. f_n
    Variable c = tanh(gates[0]) * sigmoid(gates[1]);
    for (int64_t k = 0; k < n; ++k) c = c + sigmoid(gates[size_t(3 + k)]) * cs[size_t(k)];
    return {c, sigmoid(gates[2]) * tanh(c)};
}

}  // namespace rensa::functions
