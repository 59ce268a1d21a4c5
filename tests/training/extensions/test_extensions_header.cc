// The umbrella header compiles alone and names every extension.

#include "training/extensions/extensions.h"

#include <catch2/catch.hpp>
#include <type_traits>

namespace ext = rensa::training::extensions;

TEST_CASE("extensions.h: declares every extension", "[training][extensions]") {
    using rensa::training::Extension;
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::Evaluator>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::LogReport>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::PrintReport>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::ProgressBar>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::FailOnNonNumber>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::Snapshot>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::PlotReport>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::DumpGraph>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::MicroAverage>);
    STATIC_REQUIRE(std::is_base_of_v<Extension, ext::ParameterStatistics>);
    STATIC_REQUIRE(std::is_base_of_v<ext::Shift, ext::ExponentialShift>);
    STATIC_REQUIRE(std::is_base_of_v<ext::Shift, ext::LinearShift>);
    STATIC_REQUIRE(std::is_base_of_v<ext::Shift, ext::MultistepShift>);
    STATIC_REQUIRE(std::is_base_of_v<ext::Shift, ext::StepShift>);
    STATIC_REQUIRE(std::is_base_of_v<ext::Shift, ext::PolynomialShift>);
    STATIC_REQUIRE(std::is_base_of_v<ext::Shift, ext::WarmupShift>);
    STATIC_REQUIRE(std::is_base_of_v<ext::Shift, ext::InverseShift>);
    CHECK(ext::observe_lr()->default_name() == "_observe_value");
    CHECK(ext::DumpGraph{}.default_name() == "dump_graph");
    CHECK(ext::PlotReport{"main/loss"}.default_name() == "PlotReport");
}
