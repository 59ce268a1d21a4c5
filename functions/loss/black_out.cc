// black_out: Chainer's composite of embed_id, matmul and logsumexp, so the gradients (and
// second derivatives) are autograd's.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "functions/array.h"
#include "functions/connection.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

void check_inputs(const Variable& x, const Variable& t, const Variable& W, const Variable& samples) {
    expect_float(x, "black_out", "x");
    expect_same_dtype(x, W, "black_out", "x", "W");
    expect_integer(t, "black_out", "t");
    expect_integer(samples, "black_out", "samples");
    expect_ndim(x, 2, "black_out", "x");
    expect_ndim(t, 1, "black_out", "t");
    expect_ndim(W, 2, "black_out", "W");
    expect_ndim(samples, 2, "black_out", "samples");
    RENSA_CHECK(t.shape()[0] == x.shape()[0] && samples.shape()[0] == x.shape()[0], DimensionError,
                "black_out: Expect: x.shape[0] == t.shape[0] == samples.shape[0], Actual: ", x.shape()[0], ", ",
                t.shape()[0], ", ", samples.shape()[0]);
    RENSA_CHECK(x.shape()[1] == W.shape()[1], DimensionError,
                "black_out: Expect: x.shape[1] == W.shape[1], Actual: ", x.shape()[1], " != ", W.shape()[1]);
}

}  // namespace

Variable black_out(const Variable& x, const Variable& t, const Variable& W, const Variable& samples,
                   std::string_view reduce) {
    detail::check_loss_reduce("black_out", reduce, {"mean", "no"});
    check_inputs(x, t, W, samples);
    const int64_t n = x.shape()[0];
    const Variable x3 = reshape(x, {n, -1, 1});
    const Variable neg_y = reshape(matmul(embed_id(samples, W), x3), {n, -1});           // (N, S)
    const Variable pos_y = reshape(matmul(expand_dims(embed_id(t, W), 1), x3), {n, 1});  // (N, 1)
    const Variable logz = logsumexp(concat({pos_y, neg_y}, 1), 1);                       // (N,)
    const Variable ny = log(1.0 - exp(neg_y - broadcast_to(reshape(logz, {n, 1}), neg_y.shape())));
    const Variable loss = -(reshape(pos_y, {n}) - logz + sum(ny, 1));
    return reduce == "mean" ? average(loss) : loss;
}

}  // namespace rensa::functions
