// core/reporter.h: observer prefixes, scopes, report_scope and the no-reporter case.

#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/reporter.h"

using namespace rensa;

namespace {
Array scalar(double v) { return ops::full({}, v, Dtype::kFloat64); }
}  // namespace

TEST_CASE("reporter: observer names prefix the keys") {
    Reporter reporter;
    const int model = 0;
    reporter.add_observer("main", &model);
    Observation observation;
    {
        ReporterScope scope{reporter, observation};
        CHECK(get_current_reporter() == &reporter);
        report({{"loss", scalar(1.5)}}, &model);
        report({{"lr", scalar(0.1)}});
    }
    CHECK(get_current_reporter() == nullptr);
    REQUIRE(observation.size() == 2);
    CHECK(observation.at("main/loss").item<double>() == 1.5);
    CHECK(observation.at("lr").item<double>() == 0.1);
}

TEST_CASE("reporter: an unregistered observer is a KeyError") {
    Reporter reporter;
    Observation observation;
    ReporterScope scope{reporter, observation};
    const int stranger = 0;
    CHECK_THROWS_AS(report({{"loss", scalar(1)}}, &stranger), KeyError);
    CHECK(observation.empty());
}

TEST_CASE("reporter: reports without a reporter are dropped") {
    REQUIRE(get_current_reporter() == nullptr);
    CHECK_NOTHROW(report({{"loss", scalar(1)}}));
}

TEST_CASE("reporter: add_observers prefixes each name") {
    Reporter reporter;
    const int a = 0, b = 0;
    reporter.add_observers("main/", {{"l1", &a}, {"l2", &b}});
    CHECK(reporter.observer_name(&a) == "main/l1");
    CHECK(reporter.observer_name(&b) == "main/l2");
}

TEST_CASE("reporter: report_scope collects into its own observation and the outer one") {
    Reporter reporter;
    Observation outer, inner;
    ReporterScope scope{reporter, outer};
    {
        ReportScope collect{inner};
        report({{"x", scalar(2)}});
    }
    report({{"y", scalar(3)}});
    CHECK(inner.size() == 1);
    CHECK(inner.count("y") == 0);
    CHECK(outer.at("x").item<double>() == 2);
    CHECK(outer.at("y").item<double>() == 3);
}

TEST_CASE("reporter: nested reporter scopes restore the previous reporter") {
    Reporter r1, r2;
    Observation o1, o2;
    ReporterScope s1{r1, o1};
    {
        ReporterScope s2{r2, o2};
        report({{"a", scalar(1)}});
    }
    report({{"b", scalar(2)}});
    CHECK(o2.count("a") == 1);
    CHECK(o1.count("b") == 1);
    CHECK(o1.count("a") == 0);
}
