// CooMatrix, to_coo and sparse_matmul: products against dense float64 loops (with
// transposes, batches and to_coo's padding), gradients in the sparse data and the dense
// operand, double backprop, errors.

#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array ints(const std::vector<int64_t>& values, const Shape& shape) {
    return Array::from_vector(values, shape).astype(Dtype::kInt32);
}

// Dense (nb, m, k) of the entries (padding: row < 0 skipped; repeats add up).
std::vector<double> densify(const std::vector<double>& data, const std::vector<int64_t>& row,
                            const std::vector<int64_t>& col, int64_t nb, int64_t m, int64_t k) {
    std::vector<double> a(static_cast<size_t>(nb * m * k), 0.0);
    const size_t ldnz = data.size() / static_cast<size_t>(nb);
    for (size_t i = 0; i < data.size(); ++i) {
        if (row[i] >= 0)
            a[(i / ldnz) * static_cast<size_t>(m * k) + static_cast<size_t>(row[i] * k + col[i])] += data[i];
    }
    return a;
}

// (nb, p, q) @ (nb, q, r) of row-major vectors, with optional transposes of the stored operands.
std::vector<double> bmm(const std::vector<double>& a, const std::vector<double>& b, int64_t nb, int64_t p, int64_t q,
                        int64_t r, bool ta, bool tb) {
    std::vector<double> c(static_cast<size_t>(nb * p * r), 0.0);
    for (int64_t n = 0; n < nb; ++n) {
        for (int64_t i = 0; i < p; ++i) {
            for (int64_t j = 0; j < r; ++j) {
                double s = 0;
                for (int64_t l = 0; l < q; ++l) {
                    const double x = a[static_cast<size_t>(n * p * q + (ta ? l * p + i : i * q + l))];
                    const double y = b[static_cast<size_t>(n * q * r + (tb ? j * q + l : l * r + j))];
                    s += x * y;
                }
                c[static_cast<size_t>(n * p * r + i * r + j)] = s;
            }
        }
    }
    return c;
}

struct Case {
    std::vector<int64_t> row, col;
    Shape index_shape;
    std::pair<int64_t, int64_t> shape;  // the sparse matrix
    Shape dense_shape;
    bool transa, transb, sparse_first;
};

void check_case(const char* name, const Case& c) {
    const int64_t nb = c.index_shape.size() == 2 ? c.index_shape[0] : 1;
    check_function({
        .name = name,
        .inputs = {{.shape = c.index_shape}, {.shape = c.dense_shape}},
        .func =
            [&c](const Vars& xs) {
                const F::CooMatrix sp(xs[0], ints(c.row, c.index_shape), ints(c.col, c.index_shape), c.shape);
                return Vars{c.sparse_first ? F::sparse_matmul(sp, xs[1], c.transa, c.transb)
                                           : F::sparse_matmul(xs[1], sp, c.transa, c.transb)};
            },
        .reference =
            [&c, nb](const Arrays& xs) {
                const auto [m, k] = c.shape;
                const std::vector<double> sp = densify(to_doubles(xs[0]), c.row, c.col, nb, m, k);
                const std::vector<double> dn = to_doubles(xs[1]);
                const int64_t d0 = c.dense_shape[c.dense_shape.size() - 2],
                              d1 = c.dense_shape[c.dense_shape.size() - 1];
                // sparse first: op(S) (p x q) @ op(D) (q x r); else op(D) @ op(S).
                const int64_t p = c.sparse_first ? (c.transa ? k : m) : (c.transa ? d1 : d0);
                const int64_t q = c.sparse_first ? (c.transa ? m : k) : (c.transa ? d0 : d1);
                const int64_t r = c.sparse_first ? (c.transb ? d0 : d1) : (c.transb ? m : k);
                const std::vector<double> out = c.sparse_first ? bmm(sp, dn, nb, p, q, r, c.transa, c.transb)
                                                               : bmm(dn, sp, nb, p, q, r, c.transa, c.transb);
                return Arrays{f64(out, nb > 1 || c.index_shape.size() == 2 ? Shape{nb, p, r} : Shape{p, r})};
            },
        .forward_tol = {.float16 = Tolerance{2e-2, 2e-2}},
    });
}

}  // namespace

TEST_CASE("math: sparse_matmul", "[functions][math]") {
    // A 3 x 4 matrix with 5 entries, one repeated position.
    const std::vector<int64_t> row{0, 0, 1, 2, 2}, col{1, 3, 0, 2, 2};
    check_case("sparse_matmul S D", {row, col, {5}, {3, 4}, {4, 2}, false, false, true});
    check_case("sparse_matmul S^T D", {row, col, {5}, {3, 4}, {3, 2}, true, false, true});
    check_case("sparse_matmul S D^T", {row, col, {5}, {3, 4}, {2, 4}, false, true, true});
    check_case("sparse_matmul D S", {row, col, {5}, {3, 4}, {2, 3}, false, false, false});
    check_case("sparse_matmul D^T S^T", {row, col, {5}, {3, 4}, {4, 2}, true, true, false});
    // Batched, with to_coo's padding (-1) in the second matrix.
    check_case("sparse_matmul batched",
               {{0, 1, 1, 0, 1, -1}, {1, 0, 2, 2, 1, -1}, {2, 3}, {2, 3}, {2, 3, 2}, false, false, true});
    check_case("sparse_matmul batched D S^T",
               {{0, 1, 1, 0, 1, -1}, {1, 0, 2, 2, 1, -1}, {2, 3}, {2, 3}, {2, 4, 3}, false, true, false});
}

TEST_CASE("math: to_coo and CooMatrix", "[functions][math]") {
    const Array x = Array::from_vector<double>({0, 1, 0, 2, 0, 3}, {2, 3});
    const F::CooMatrix coo = F::to_coo(x, 4);
    CHECK(coo.data().array().to_vector<double>() == std::vector<double>{1, 2, 3, 0});
    CHECK(coo.row().to_vector<int64_t>() == std::vector<int64_t>{0, 1, 1, -1});
    CHECK(coo.col().to_vector<int64_t>() == std::vector<int64_t>{1, 0, 2, -1});
    CHECK(coo.row().dtype() == Dtype::kInt32);
    CHECK(coo.order() == "C");
    CHECK_FALSE(coo.data().requires_grad());
    CHECK(coo.to_dense().to_vector<double>() == x.to_vector<double>());
    // 3-D: padded to the largest count.
    const Array xs = Array::from_vector<double>({1, 0, 0, 2, 0, 0, 0, 5}, {2, 2, 2});
    const F::CooMatrix batch = F::to_coo(xs, std::nullopt, true);
    CHECK(batch.data().shape() == Shape{2, 2});
    CHECK(batch.data().requires_grad());
    CHECK(batch.row().to_vector<int64_t>() == std::vector<int64_t>{0, 1, 1, -1});
    CHECK(batch.to_dense().to_vector<double>() == xs.to_vector<double>());
    const F::CooMatrix f_order(Variable(ops::ones({3})), ints({0, 1, 0}, {3}), ints({0, 0, 1}, {3}), {2, 2});
    CHECK(f_order.order() == "F");
    const F::CooMatrix other(Variable(ops::ones({3})), ints({1, 0, 1}, {3}), ints({1, 0, 0}, {3}), {2, 2});
    CHECK(other.order() == "other");
    CHECK(F::get_order(ints({0, 0, 1, -1}, {4}), ints({0, 2, 1, -1}, {4})) == "C");
    CHECK(F::get_order(ints({0, 1, 1, 0}, {2, 2}), ints({0, 1, 1, 0}, {2, 2})) == "other");
    CHECK_THROWS_WITH(F::get_order(ints({0, -1}, {2}), ints({0, 1}, {2})),
                      Catch::Contains("get_order: invalid index combination"));
}

TEST_CASE("math: sparse_matmul errors", "[functions][math]") {
    const Variable data(ops::ones({2}));
    CHECK_THROWS_WITH(F::CooMatrix(data, ints({0, 5}, {2}), ints({0, 0}, {2}), {2, 2}),
                      Catch::Contains("CooMatrix: index (5, 0) at entry 1 is out of bounds for shape (2, 2)"));
    CHECK_THROWS_WITH(F::CooMatrix(data, ints({0, -1}, {2}), ints({0, 1}, {2}), {2, 2}),
                      Catch::Contains("invalid index combination of row and col"));
    CHECK_THROWS_AS(F::CooMatrix(data, ints({0}, {1}), ints({0}, {1}), {2, 2}), ValueError);
    CHECK_THROWS_AS(F::CooMatrix(data, ints({0, 0}, {2}), ints({0, 0}, {2}), {0, 2}), ValueError);
    CHECK_THROWS_AS(F::CooMatrix(data, ints({0, 0}, {2}), ints({0, 0}, {2}), {2, 2}, "X"), ValueError);
    CHECK_THROWS_AS(F::to_coo(ops::zeros({2})), ValueError);
    const F::CooMatrix sp(data, ints({0, 1}, {2}), ints({0, 1}, {2}), {2, 3});
    CHECK_THROWS_WITH(
        F::sparse_matmul(sp, Variable(ops::zeros({2, 2}))),
        Catch::Contains("sparse_matmul: Expect: the dense operand's second-to-last axis to have length 3"));
    CHECK_THROWS_AS(F::sparse_matmul(sp, Variable(ops::zeros({2, 3, 2}))), DimensionError);
    CHECK_THROWS_AS(F::sparse_matmul(sp, Variable(ops::zeros({3, 2}, Dtype::kFloat64))), DtypeError);
}
