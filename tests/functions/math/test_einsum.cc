// einsum: a naive float64 reference that loops over every label assignment, checked on
// matrix products, batches, transposes, traces, diagonals, reductions, implicit output,
// ellipsis and three operands.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// out[output labels] = sum over all other labels of prod_k x_k[labels_k], for explicit
// letter-only subscripts "ab,bc->ac".
Array einsum_ref(const std::string& subscripts, const Arrays& xs) {
    const size_t arrow = subscripts.find("->");
    std::vector<std::string> terms;
    std::string lhs = subscripts.substr(0, arrow), term;
    for (char c : lhs + ",") {
        if (c == ',') {
            terms.push_back(term);
            term.clear();
        } else {
            term += c;
        }
    }
    const std::string out = subscripts.substr(arrow + 2);
    std::map<char, int64_t> sizes;
    for (size_t k = 0; k < terms.size(); ++k) {
        for (size_t d = 0; d < terms[k].size(); ++d) sizes[terms[k][d]] = xs[k].shape()[static_cast<int>(d)];
    }
    std::string labels;
    Shape all, out_shape;
    for (const auto& [l, n] : sizes) {
        labels += l;
        all.push_back(n);
    }
    for (char l : out) out_shape.push_back(sizes[l]);
    std::vector<std::vector<double>> values;
    for (const Array& x : xs) values.push_back(to_doubles(x));
    std::vector<double> result(static_cast<size_t>(shape_size(out_shape)), 0.0);
    for (int64_t i = 0; i < shape_size(all); ++i) {
        const auto index = unravel(i, all);
        const auto at = [&](const std::string& t, const Shape& shape) {
            std::vector<int64_t> idx;
            for (char l : t) idx.push_back(index[labels.find(l)]);
            return ravel(idx, shape);
        };
        double p = 1.0;
        for (size_t k = 0; k < terms.size(); ++k) p *= values[k][static_cast<size_t>(at(terms[k], xs[k].shape()))];
        result[static_cast<size_t>(at(out, out_shape))] += p;
    }
    return f64(result, out_shape);
}

struct EinsumCase {
    std::string subscripts;     // passed to einsum
    std::string explicit_form;  // for the reference
    std::vector<Shape> shapes;
};

}  // namespace

TEST_CASE("math: einsum", "[functions][math]") {
    const std::vector<EinsumCase> cases{
        {"ij,jk->ik", "ij,jk->ik", {{2, 3}, {3, 4}}},
        {"ij,jk", "ij,jk->ik", {{2, 3}, {3, 4}}},  // implicit
        {"ij,kj->ki", "ij,kj->ki", {{2, 3}, {4, 3}}},
        {"bij,bjk->bik", "bij,bjk->bik", {{2, 2, 3}, {2, 3, 2}}},
        {"bij,bkj->bki", "bij,bkj->bki", {{2, 2, 3}, {2, 2, 3}}},
        {"ij,ij->i", "ij,ij->i", {{2, 3}, {2, 3}}},
        {"i,j->ij", "i,j->ij", {{2}, {3}}},
        {"i,i", "i,i->", {{4}, {4}}},
        {"ijk,ikl->jl", "ijk,ikl->jl", {{2, 3, 2}, {2, 2, 3}}},
        {"ij,jk,kl->il", "ij,jk,kl->il", {{2, 3}, {3, 2}, {2, 2}}},
        {"ij->ji", "ij->ji", {{2, 3}}},
        {"ij", "ij->ij", {{2, 3}}},
        {"ij->", "ij->", {{2, 3}}},
        {"ij->j", "ij->j", {{2, 3}}},
        {"ii->", "ii->", {{3, 3}}},
        {"ii->i", "ii->i", {{3, 3}}},
        {"ii", "ii->", {{3, 3}}},
        {"iji->j", "iji->j", {{2, 3, 2}}},
        {"ii,ij->j", "ii,ij->j", {{3, 3}, {3, 2}}},
        {"ab, b c -> a c", "ab,bc->ac", {{2, 3}, {3, 2}}},  // spaces
    };
    for (const EinsumCase& c : cases) {
        std::vector<InputSpec> inputs;
        for (const Shape& s : c.shapes) inputs.push_back({.shape = s});
        check_function({
            .name = "einsum " + c.subscripts,
            .inputs = inputs,
            .func = [&c](const Vars& xs) { return Vars{F::einsum(c.subscripts, xs)}; },
            .reference = [&c](const Arrays& xs) { return Arrays{einsum_ref(c.explicit_form, xs)}; },
        });
    }
}

TEST_CASE("math: einsum with ellipsis", "[functions][math]") {
    check_function({
        .name = "einsum ...ij,...jk->...ik",
        .inputs = {{.shape = {2, 2, 3}}, {.shape = {2, 3, 2}}},
        .func = [](const Vars& xs) { return Vars{F::einsum("...ij,...jk->...ik", xs)}; },
        .reference = [](const Arrays& xs) { return Arrays{einsum_ref("bij,bjk->bik", xs)}; },
    });
    check_function({
        .name = "einsum ...i->i... implicit-free",
        .inputs = {{.shape = {2, 3}}},
        .func = [](const Vars& xs) { return Vars{F::einsum("i...->...", xs)}; },
        .reference = [](const Arrays& xs) { return Arrays{einsum_ref("ij->j", xs)}; },
    });
    check_function({
        .name = "einsum ...j,j implicit",
        .inputs = {{.shape = {2, 3}}, {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{F::einsum("...j,j", xs)}; },
        .reference = [](const Arrays& xs) { return Arrays{einsum_ref("ij,j->i", xs)}; },
    });
}

TEST_CASE("math: einsum broadcasts ellipsis dims", "[functions][math]") {
    // (2, 1, 2, 3) x (3, 2, 3, 2) -> (2, 3, 2, 2); and a 3-D with a 2-D operand.
    const auto batched = [](const Arrays& xs, int64_t b0, int64_t b1) {
        std::vector<double> out;
        const std::vector<double> a = to_doubles(xs[0]), b = to_doubles(xs[1]);
        const int64_t na1 = xs[0].ndim() == 4 ? xs[0].shape()[1] : 1;
        for (int64_t i = 0; i < b0; ++i)
            for (int64_t j = 0; j < b1; ++j)
                for (int64_t r = 0; r < 2; ++r)
                    for (int64_t c = 0; c < 2; ++c) {
                        double s = 0;
                        for (int64_t k = 0; k < 3; ++k) {
                            const int64_t ai = ((i * na1 + (na1 == 1 ? 0 : j)) * 2 + r) * 3 + k;
                            s += a[static_cast<size_t>(ai)] * b[static_cast<size_t>((j * 3 + k) * 2 + c)];
                        }
                        out.push_back(s);
                    }
        return f64(out, {b0, b1, 2, 2});
    };
    check_function({
        .name = "einsum ...ij,...jk->...ik broadcast",
        .inputs = {{.shape = {2, 1, 2, 3}}, {.shape = {3, 3, 2}}},
        .func = [](const Vars& xs) { return Vars{F::einsum("...ij,...jk->...ik", xs)}; },
        .reference = [&](const Arrays& xs) { return Arrays{batched(xs, 2, 3)}; },
    });
}

TEST_CASE("math: einsum errors", "[functions][math]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({4, 5}));
    CHECK_THROWS_AS(F::einsum("ij,jk->ik", {a, b}), DimensionError);
    CHECK_THROWS_AS(F::einsum("ij->ik", {a}), ValueError);
    CHECK_THROWS_AS(F::einsum("ij->ii", {a}), ValueError);
    CHECK_THROWS_AS(F::einsum("ijk->i", {a}), ValueError);
    CHECK_THROWS_AS(F::einsum("ij,jk->ik", {a}), ValueError);
    CHECK_THROWS_AS(F::einsum("i1->i", {a}), ValueError);
    CHECK_THROWS_AS(F::einsum("ij", {}), ValueError);
    CHECK_THROWS_AS(F::einsum("ij,jk", {a, Variable(ops::zeros({3, 2}, Dtype::kFloat64))}), DtypeError);
}
