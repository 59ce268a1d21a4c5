// classification_summary, precision, recall, fbeta_score, f1_score against hand-counted
// values; label checks.

#include <catch2/catch.hpp>
#include <cmath>

#include "core/ops/creation.h"
#include "functions/evaluation.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Rows score classes 0..2; predictions (argmax) are 0, 1, 2, 1, 0, 2.
Variable scores() {
    return Variable(Array::from_vector<float>({0.9f, 0.1f, 0.0f, 0.1f, 0.8f, 0.1f, 0.0f, 0.2f, 0.8f,  //
                                               0.3f, 0.6f, 0.1f, 0.5f, 0.4f, 0.1f, 0.1f, 0.1f, 0.8f},
                                              {6, 3}));
}
Variable labels(const std::vector<int32_t>& t) {
    return Variable(Array::from_vector(t, {static_cast<int64_t>(t.size())}));
}

void check_values(const Variable& v, const std::vector<double>& expected) {
    const std::vector<double> got = to_doubles(v.array());
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("index " << i);
        if (std::isnan(expected[i])) {
            CHECK(std::isnan(got[i]));
        } else {
            CHECK(got[i] == Approx(expected[i]));
        }
    }
}

}  // namespace

TEST_CASE("classification_summary: per-class counts", "[functions][evaluation]") {
    // t: 0, 1, 1, 1, 2, 2 against pred 0, 1, 2, 1, 0, 2:
    // class 0: tp 1, relevant 2, support 1; class 1: tp 2, relevant 2, support 3; class 2: tp 1, relevant 2, support 2.
    const auto [p, r, f, support] = F::classification_summary(scores(), labels({0, 1, 1, 1, 2, 2}));
    check_values(p, {0.5, 1.0, 0.5});
    check_values(r, {1.0, 2.0 / 3, 0.5});
    check_values(f, {2 * 0.5 / 1.5, 2 * (2.0 / 3) / (5.0 / 3), 0.5});
    CHECK(support.dtype() == Dtype::kInt64);
    check_values(support, {1, 3, 2});
    CHECK(!p.requires_grad());
    check_values(F::precision(scores(), labels({0, 1, 1, 1, 2, 2})).first, {0.5, 1.0, 0.5});
    check_values(F::recall(scores(), labels({0, 1, 1, 1, 2, 2})).first, {1.0, 2.0 / 3, 0.5});
    check_values(F::f1_score(scores(), labels({0, 1, 1, 1, 2, 2})).first, {2.0 / 3, 0.8, 0.5});
    // beta = 2: (1 + 4) p r / (4 p + r).
    check_values(F::fbeta_score(scores(), labels({0, 1, 1, 1, 2, 2}), std::nullopt, 2.0).first,
                 {5 * 0.5 / 3.0, 5 * (2.0 / 3) / (4 + 2.0 / 3), 5 * 0.25 / 2.5});
}

TEST_CASE("classification_summary: ignore_label, label_num, NaN", "[functions][evaluation]") {
    // Position 2 ignored; label_num 4: class 3 has no support and no predictions (NaN).
    const auto [p, support] = F::precision(scores(), labels({0, 1, -1, 1, 2, 2}), 4);
    check_values(support, {1, 2, 2, 0});
    check_values(p, {0.5, 1.0, 1.0, std::nan("")});
    check_values(F::recall(scores(), labels({0, 1, 7, 1, 2, 2}), 3, 7).first, {1.0, 1.0, 0.5});
    // Without label_num it is max(t) + 1, ignored labels included (as Chainer).
    CHECK(F::recall(scores(), labels({0, 1, 7, 1, 2, 2}), std::nullopt, 7).first.shape() == Shape{8});
    // label_num 2: predictions of class 2 count nowhere.
    check_values(F::recall(scores(), labels({0, 1, 1, 1, 0, 0}), 2).first, {2.0 / 3, 2.0 / 3});
}

TEST_CASE("classification_summary: bad labels and shapes", "[functions][evaluation]") {
    CHECK_THROWS_WITH(F::precision(scores(), labels({0, 1, 5, 1, 2, 2}), 3), Catch::Contains("label 5 at position 2"));
    CHECK_THROWS_AS(F::recall(scores(), labels({0, 1, -2, 1, 2, 2})), ValueError);
    CHECK_THROWS_AS(F::f1_score(scores(), labels({0, 1})), DimensionError);
    CHECK_THROWS_AS(F::f1_score(scores(), Variable(ops::zeros({6}))), DtypeError);
}
