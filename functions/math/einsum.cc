// einsum: subscripts parsed into integer labels, repeated labels of one operand taken
// as diagonals, then operands contracted pairwise (left to right) with batched GEMM.
// Everything but the diagonal is built from differentiable transpose/reshape/sum/matmul.

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/math/detail.h"

namespace rensa::functions {
namespace {

// Letters are their character code; the dims an ellipsis covers are kEllipsis + k, k
// counting from the right, so "...ij" and "...j" line up like numpy.
constexpr int kEllipsis = 1000;
using Labels = std::vector<int>;

// The view of x's diagonal over axes i < j (axis j dropped, the diagonal stays at i).
Array diagonal_view(const Array& x, int i, int j) {
    Shape shape = x.shape();
    Strides strides = x.strides();
    strides[i] += strides[j];
    shape.erase(j);
    strides.erase(j);
    return Array(x.storage(), shape, strides, x.offset(), x.dtype());
}

class DiagonalGrad;

class Diagonal : public FunctionNode {
public:
    Diagonal(int i, int j) : i_{i}, j_{j} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {diagonal_view(xs[0], i_, j_)}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override;
    std::string label() const override { return "Diagonal"; }

private:
    int i_, j_;
};

// Scatters gy onto the diagonal of zeros of the input's shape.
class DiagonalGrad : public FunctionNode {
public:
    DiagonalGrad(Shape shape, int i, int j) : shape_{std::move(shape)}, i_{i}, j_{j} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        const Array gx = ops::zeros(shape_, gys[0].dtype(), gys[0].device());
        diagonal_view(gx, i_, j_).assign(gys[0]);
        return {gx};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override {
        return {math_detail::apply1<Diagonal>({ggs[0]}, i_, j_)};
    }
    std::string label() const override { return "DiagonalGrad"; }

private:
    Shape shape_;
    int i_, j_;
};

std::vector<Variable> Diagonal::backward(const Indexes&, const std::vector<Variable>& gys) {
    return {math_detail::apply1<DiagonalGrad>({gys[0]}, input_shape(0), i_, j_)};
}

// --- Parsing.

bool is_label(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// One operand's (or the output's) subscripts; `ndim` sizes the ellipsis.
Labels parse_term(std::string_view term, int ndim, std::string_view what) {
    const size_t dots = term.find("...");
    const std::string_view head = term.substr(0, dots);
    const std::string_view tail = dots == std::string_view::npos ? std::string_view{} : term.substr(dots + 3);
    Labels labels;
    for (const std::string_view part : {head, tail}) {
        for (const char c : part) {
            RENSA_CHECK(is_label(c), ValueError, "einsum: invalid subscript '", c, "' in ", what, " '", term, "'");
        }
    }
    for (const char c : head) labels.push_back(c);
    if (dots != std::string_view::npos) {
        const int covered = ndim - static_cast<int>(head.size() + tail.size());
        RENSA_CHECK(covered >= 0, DimensionError, "einsum: ", what, " '", term, "' has more subscripts than its ", ndim,
                    " dimensions");
        for (int k = covered - 1; k >= 0; --k) labels.push_back(kEllipsis + k);
    }
    for (const char c : tail) labels.push_back(c);
    return labels;
}

struct Spec {
    std::vector<Labels> inputs;
    Labels output;
};

// numpy's implicit output: ellipsis dims first, then the labels seen once, alphabetically.
Labels implicit_output(const std::vector<Labels>& inputs) {
    std::map<int, int> counts;
    for (const Labels& labels : inputs) {
        for (int l : labels) ++counts[l];
    }
    Labels out;
    for (auto it = counts.rbegin(); it != counts.rend() && it->first >= kEllipsis; ++it) out.push_back(it->first);
    for (const auto& [label, count] : counts) {
        if (label < kEllipsis && count == 1) out.push_back(label);
    }
    return out;
}

Spec parse(const std::string& subscripts, const std::vector<Variable>& operands) {
    std::string s;
    for (const char c : subscripts) {
        if (c != ' ') s += c;
    }
    const size_t arrow = s.find("->");
    const std::string lhs = s.substr(0, arrow);
    Spec spec;
    size_t start = 0;
    int max_ellipsis = 0;
    for (size_t k = 0; k < operands.size(); ++k) {
        const size_t comma = lhs.find(',', start);
        RENSA_CHECK((comma == std::string::npos) == (k + 1 == operands.size()), ValueError, "einsum: subscripts '",
                    subscripts, "' do not name ", operands.size(), " operand(s)");
        const std::string term = lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        spec.inputs.push_back(parse_term(term, operands[k].ndim(), "operand " + std::to_string(k)));
        RENSA_CHECK(static_cast<int>(spec.inputs.back().size()) == operands[k].ndim(), ValueError, "einsum: operand ",
                    k, " has ", operands[k].ndim(), " dimensions but subscripts '", term, "'");
        for (int l : spec.inputs.back()) max_ellipsis = std::max(max_ellipsis, l >= kEllipsis ? l - kEllipsis + 1 : 0);
        start = comma + 1;
    }
    if (arrow == std::string::npos) {
        spec.output = implicit_output(spec.inputs);
        return spec;
    }
    const std::string rhs = s.substr(arrow + 2);
    const int letters = static_cast<int>(std::count_if(rhs.begin(), rhs.end(), is_label));
    spec.output = parse_term(rhs, rhs.find("...") == std::string::npos ? letters : letters + max_ellipsis, "output");
    return spec;
}

// Sizes of every label; a label must have one size everywhere, and the output's labels
// must be unique and appear in some operand.
std::map<int, int64_t> check_labels(const Spec& spec, const std::vector<Variable>& operands) {
    std::map<int, int64_t> sizes;
    for (size_t k = 0; k < operands.size(); ++k) {
        for (size_t d = 0; d < spec.inputs[k].size(); ++d) {
            const int l = spec.inputs[k][d];
            const int64_t n = operands[k].shape()[static_cast<int>(d)];
            const auto [it, fresh] = sizes.emplace(l, n);
            // Dims under an ellipsis broadcast (1 against n), as numpy.
            const bool broadcasts = l >= kEllipsis && (it->second == 1 || n == 1);
            if (broadcasts && it->second == 1) it->second = n;
            RENSA_CHECK(fresh || broadcasts || it->second == n, DimensionError, "einsum: subscript ",
                        (l < kEllipsis ? std::string(1, static_cast<char>(l)) : std::string("...")), " has sizes ",
                        it->second, " and ", n, " (operand ", k, ")");
        }
    }
    std::set<int> seen;
    for (int l : spec.output) {
        RENSA_CHECK(seen.insert(l).second && sizes.count(l) > 0, ValueError, "einsum: output subscript '",
                    (l < kEllipsis ? std::string(1, static_cast<char>(l)) : std::string("...")),
                    "' is repeated or appears in no operand");
    }
    return sizes;
}

// --- Contraction.

struct Term {
    Variable v;
    Labels labels;
};

bool contains(const Labels& labels, int l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); }

// The operand with its ellipsis dims of length 1 broadcast to the other operands' length.
Term broadcast_ellipsis(Term t, const std::map<int, int64_t>& sizes) {
    Shape shape = t.v.shape();
    for (size_t d = 0; d < t.labels.size(); ++d) shape[static_cast<int>(d)] = sizes.at(t.labels[d]);
    t.v = broadcast_to(t.v, shape);
    return t;
}

// Repeated labels of one operand become diagonals.
Term take_diagonals(Term t) {
    for (int i = 0; i < static_cast<int>(t.labels.size()); ++i) {
        for (int j = static_cast<int>(t.labels.size()) - 1; j > i; --j) {
            if (t.labels[j] != t.labels[i]) continue;
            t.v = math_detail::apply1<Diagonal>({t.v}, i, j);
            t.labels.erase(t.labels.begin() + j);
        }
    }
    return t;
}

// Sums away the axes whose labels are not in `keep`.
Term sum_except(Term t, const std::set<int>& keep) {
    Axes axes;
    Labels kept;
    for (int d = 0; d < static_cast<int>(t.labels.size()); ++d) {
        if (keep.count(t.labels[d]) > 0) {
            kept.push_back(t.labels[d]);
        } else {
            axes.push_back(d);
        }
    }
    if (axes.empty()) return t;
    return {rensa::sum(t.v, axes), kept};
}

// t transposed to `order` (a permutation of its labels) and reshaped to `shape`.
Variable arrange(const Term& t, const Labels& order, const Shape& shape) {
    Axes perm;
    for (int l : order)
        perm.push_back(static_cast<int>(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin()));
    return reshape(functions::transpose(t.v, perm), shape);
}

// a and b contracted over their shared labels not in `keep`; shared labels in `keep`
// are batch axes. Result labels: batch, then a's own, then b's own.
Term contract(Term a, Term b, const std::set<int>& keep, const std::map<int, int64_t>& sizes) {
    std::set<int> keep_a = keep, keep_b = keep;
    keep_a.insert(b.labels.begin(), b.labels.end());
    keep_b.insert(a.labels.begin(), a.labels.end());
    a = sum_except(std::move(a), keep_a);
    b = sum_except(std::move(b), keep_b);
    Labels batch, free_a, free_b, summed;
    for (int l : a.labels) (contains(b.labels, l) ? (keep.count(l) ? batch : summed) : free_a).push_back(l);
    for (int l : b.labels) {
        if (!contains(a.labels, l)) free_b.push_back(l);
    }
    const auto size_of = [&](const Labels& ls) {
        int64_t n = 1;
        for (int l : ls) n *= sizes.at(l);
        return n;
    };
    const int64_t nb = size_of(batch), m = size_of(free_a), k = size_of(summed), n = size_of(free_b);
    Labels order_a = batch, order_b = batch, out = batch;
    order_a.insert(order_a.end(), free_a.begin(), free_a.end());
    order_a.insert(order_a.end(), summed.begin(), summed.end());
    order_b.insert(order_b.end(), summed.begin(), summed.end());
    order_b.insert(order_b.end(), free_b.begin(), free_b.end());
    out.insert(out.end(), free_a.begin(), free_a.end());
    out.insert(out.end(), free_b.begin(), free_b.end());
    const Variable y = matmul(arrange(a, order_a, {nb, m, k}), arrange(b, order_b, {nb, k, n}));
    Shape out_shape;
    for (int l : out) out_shape.push_back(sizes.at(l));
    return {reshape(y, out_shape), out};
}

}  // namespace

Variable einsum(const std::string& subscripts, const std::vector<Variable>& operands) {
    RENSA_CHECK(!operands.empty(), ValueError, "einsum: needs at least one operand");
    expect_float(operands[0], "einsum", "operands[0]");
    for (size_t k = 1; k < operands.size(); ++k) {
        expect_same_dtype(operands[0], operands[k], "einsum", "operands[0]", "operands[" + std::to_string(k) + "]");
    }
    const Spec spec = parse(subscripts, operands);
    const std::map<int, int64_t> sizes = check_labels(spec, operands);
    Term acc = take_diagonals(broadcast_ellipsis({operands[0], spec.inputs[0]}, sizes));
    for (size_t k = 1; k < operands.size(); ++k) {
        std::set<int> keep(spec.output.begin(), spec.output.end());  // needed later: output and later operands
        for (size_t r = k + 1; r < operands.size(); ++r) keep.insert(spec.inputs[r].begin(), spec.inputs[r].end());
        acc = contract(std::move(acc), take_diagonals(broadcast_ellipsis({operands[k], spec.inputs[k]}, sizes)), keep,
                       sizes);
    }
    acc = sum_except(std::move(acc), std::set<int>(spec.output.begin(), spec.output.end()));
    Shape out_shape;
    for (int l : spec.output) out_shape.push_back(sizes.at(l));
    return arrange(acc, spec.output, out_shape);
}

}  // namespace rensa::functions
