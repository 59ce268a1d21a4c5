// embed_id: y = W[x] (rows of W gathered by integer ids), with Chainer's ignore_label whose
// rows are zeros and get no gradient. The gradient of W is a scatter-add (EmbedIDGrad),
// whose own backward is embed_id again, so double backprop works.

#include <memory>
#include <optional>
#include <utility>

#include "autograd/check.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "functions/connection.h"

namespace rensa::functions {
namespace {

// Ids made ready for take/scatter_add: int64, ignored positions pointing at row 0, and the
// mask of ignored positions shaped like the gathered rows (ids.shape + (1,)).
struct PreparedIds {
    Array ids;
    std::optional<Array> ignored;
};

// The multi-index of flat position `flat` in `shape`, as "(i, j, ...)".
std::string position(int64_t flat, const Shape& shape) {
    std::vector<int64_t> index(static_cast<size_t>(shape.size()));
    for (int d = shape.size() - 1; d >= 0; --d) {
        index[static_cast<size_t>(d)] = shape[d] == 0 ? 0 : flat % shape[d];
        flat = shape[d] == 0 ? 0 : flat / shape[d];
    }
    std::string s = "(";
    for (size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
    return s + (index.size() == 1 ? ",)" : ")");
}

// Checked on the host only where the ids already are (See Note [Device index wrap]: ids on a
// device wrap there, as Chainer's CUDA path (CuPy's take) does).
void check_ids(const Array& ids, int64_t n_vocab, std::optional<int64_t> ignore_label) {
    if (ids.device().kind != DeviceKind::kNative) return;
    const std::vector<int64_t> values = ids.to_vector<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) {
        const int64_t v = values[i];
        if (ignore_label && v == *ignore_label) continue;
        RENSA_CHECK(v >= 0 && v < n_vocab, ValueError, "embed_id: Each not ignored `x` value need to satisfy ",
                    "`0 <= x < len(W)`: x", position(static_cast<int64_t>(i), ids.shape()), " = ", v,
                    " with len(W) = ", n_vocab);
    }
}

PreparedIds prepare(const Array& x, std::optional<int64_t> ignore_label) {
    const Array ids = x.astype(Dtype::kInt64, false);
    if (!ignore_label) return {ids, std::nullopt};
    const Array ignored = ops::equal(ids, *ignore_label);
    Shape row_shape = ids.shape();
    row_shape.push_back(1);
    return {ops::where(ignored, 0, ids), ignored.reshape(row_shape)};
}

// Rows of W at `ids`, zeros where ignored.
Array gather_rows(const Array& W, const PreparedIds& p) {
    const Array y = ops::take(W, p.ids, 0);
    return p.ignored ? ops::where(*p.ignored, 0, y) : y;
}

// gW = zeros(W.shape); gW[ids] += gy (ignored rows skipped); low precision accumulates in float32.
Array scatter_rows(const Array& gy, const PreparedIds& p, const Shape& w_shape) {
    const Dtype acc_dtype = itemsize(gy.dtype()) < 4 ? Dtype::kFloat32 : gy.dtype();
    const Array gW = ops::zeros(w_shape, acc_dtype, gy.device());
    ops::scatter_add(gW, p.ids, p.ignored ? ops::where(*p.ignored, 0, gy) : gy, 0);
    return gW.astype(gy.dtype(), false);
}

// gW from gy: input (gy); its backward gathers ggW at the same ids.
class EmbedIDGrad : public FunctionNode {
public:
    EmbedIDGrad(PreparedIds ids, std::optional<int64_t> ignore_label, Shape w_shape)
        : ids_{std::move(ids)}, ignore_label_{ignore_label}, w_shape_{w_shape} {}
    std::vector<Array> forward(const std::vector<Array>& gys) override {
        return {scatter_rows(gys[0], ids_, w_shape_)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& ggs) override;
    std::string label() const override { return "EmbedIDGrad"; }

private:
    PreparedIds ids_;
    std::optional<int64_t> ignore_label_;
    Shape w_shape_;
};

// y = W[x]: inputs (x, W); x gets no gradient.
class EmbedIDFunction : public FunctionNode {
public:
    EmbedIDFunction(PreparedIds ids, std::optional<int64_t> ignore_label)
        : ids_{std::move(ids)}, ignore_label_{ignore_label} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {gather_rows(xs[1], ids_)}; }
    std::vector<Variable> backward(const Indexes& indexes, const std::vector<Variable>& gys) override {
        std::vector<Variable> out;
        for (int i : indexes) {
            out.push_back(i == 1
                              ? std::make_shared<EmbedIDGrad>(ids_, ignore_label_, input_shape(1))->apply({gys[0]})[0]
                              : Variable());
        }
        return out;
    }
    std::string label() const override { return "EmbedIDFunction"; }
    Attributes attributes() const override {
        if (!ignore_label_) return {};
        return {{"ignore_label", *ignore_label_}};
    }

private:
    PreparedIds ids_;
    std::optional<int64_t> ignore_label_;
};

std::vector<Variable> EmbedIDGrad::backward(const Indexes&, const std::vector<Variable>& ggs) {
    // ggy = ggW[ids]: the same gather with ids held constant (EmbedIDFunction's x input).
    const Variable ids(ids_.ids, false);
    return {std::make_shared<EmbedIDFunction>(ids_, ignore_label_)->apply({ids, ggs[0]})[0]};
}

}  // namespace

Variable embed_id(const Variable& x, const Variable& W, std::optional<int64_t> ignore_label) {
    expect_integer(x, "embed_id", "x");
    expect_float(W, "embed_id", "W");
    expect_ndim(W, 2, "embed_id", "W");
    check_ids(x.array(), W.shape()[0], ignore_label);
    PreparedIds ids = prepare(x.array(), ignore_label);
    return std::make_shared<EmbedIDFunction>(std::move(ids), ignore_label)->apply({x, W})[0];
}

}  // namespace rensa::functions
