#include <catch2/catch.hpp>
#include <cmath>

#include "core/error.h"
#include "serializers/npz.h"
#include "tests/training/trainer/trainer_testing.h"
#include "training/summary.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using rensa::testing::make_array;

Array scalar(double v, Dtype dtype = Dtype::kFloat32) { return make_array({v}, Shape{}, dtype); }

}  // namespace

TEST_CASE("Summary mean and population std with weights", "[training][trainer]") {
    Summary s;
    CHECK_THROWS_AS(s.compute_mean(), ValueError);
    s.add(1.0);
    s.add(2.0);
    s.add(make_array({3.0, 5.0}, Shape{2}, Dtype::kFloat64));  // an array counts as its mean, 4
    CHECK(s.count() == 3);
    CHECK(s.compute_mean() == Approx(7.0 / 3.0));
    const auto [mean, std] = s.make_statistics();
    CHECK(mean == Approx(7.0 / 3.0));
    CHECK(std == Approx(std::sqrt((1.0 + 4.0 + 16.0) / 3.0 - 49.0 / 9.0)));
    Summary w;
    w.add(2.0, 3.0);  // Chainer: x += w*v, n += w
    w.add(6.0, 1.0);
    CHECK(w.count() == 4);
    CHECK(w.compute_mean() == Approx(3.0));
}

TEST_CASE("DictSummary means std and skipped non-scalars", "[training][trainer]") {
    DictSummary d;
    CHECK(d.empty());
    d.add(Observation{{"main/loss", scalar(1.0)},
                      {"main/accuracy", scalar(0.5)},
                      {"vec", make_array({1, 2}, Shape{2}, Dtype::kFloat32)}});
    d.add(Observation{{"main/loss", scalar(3.0)}, {"count", scalar(4, Dtype::kInt32)}});
    d.add(std::map<std::string, double>{{"main/loss", 5.0}});
    const auto means = d.compute_mean();
    CHECK(means.size() == 3);
    CHECK(means.count("vec") == 0);
    CHECK(means.at("main/loss") == Approx(3.0));
    CHECK(means.at("main/accuracy") == Approx(0.5));
    CHECK(means.at("count") == Approx(4.0));
    const auto stats = d.make_statistics();
    CHECK(stats.size() == 6);
    CHECK(stats.at("main/loss.std") == Approx(std::sqrt(8.0 / 3.0)));
    CHECK(stats.at("main/accuracy.std") == Approx(0.0));
}

TEST_CASE("DictSummary serialize round trip through npz", "[training][trainer]") {
    rensa::testing::TempDir dir{"dict_summary"};
    DictSummary a;
    a.add(std::map<std::string, double>{{"main/loss", 1.0}, {"validation/main/accuracy", 0.25}});
    a.add(std::map<std::string, double>{{"main/loss", 2.0}});
    serializers::save_npz(dir.file("s.npz"), a);

    DictSummary b;
    b.add(std::map<std::string, double>{{"stale", 9.0}});
    serializers::load_npz(dir.file("s.npz"), b);
    CHECK(b.compute_mean() == a.compute_mean());
    CHECK(b.make_statistics() == a.make_statistics());
    CHECK(b.compute_mean().count("stale") == 0);
    // The loaded summaries keep accumulating.
    b.add(std::map<std::string, double>{{"main/loss", 6.0}});
    CHECK(b.compute_mean().at("main/loss") == Approx(3.0));

    DictSummary empty;
    serializers::save_npz(dir.file("e.npz"), empty);
    serializers::load_npz(dir.file("e.npz"), b);
    CHECK(b.empty());
}
