// include/rensa/version.h and include/rensa/rensa.h as the tree builds them (cmake/RensaInstall.cmake):
// the version macros and rensa::version() agree with project(VERSION) in the root CMakeLists.txt,
// RENSA_HAS_* with the modules built, and the umbrella header compiles and works on its own.

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "rensa/rensa.h"

namespace {

using rensa::Array;
using rensa::Shape;
using rensa::Variable;

TEST_CASE("version.h: the version of project(VERSION), in the header and in the library", "[install]") {
    CHECK(std::string(RENSA_VERSION_STRING) == RENSA_TEST_PROJECT_VERSION);
    CHECK(std::string(rensa::version()) == RENSA_TEST_PROJECT_VERSION);
    CHECK(std::to_string(RENSA_VERSION_MAJOR) + "." + std::to_string(RENSA_VERSION_MINOR) + "." +
              std::to_string(RENSA_VERSION_PATCH) ==
          RENSA_TEST_PROJECT_VERSION);
}

TEST_CASE("version.h: RENSA_HAS_CUDA and RENSA_HAS_DISTRIBUTED follow the modules built", "[install]") {
    CHECK(RENSA_HAS_CUDA == RENSA_TEST_BUILT_CUDA);
    CHECK(RENSA_HAS_DISTRIBUTED == RENSA_TEST_BUILT_DISTRIBUTED);
}

TEST_CASE("rensa.h: one include gives arrays, functions, links and optimizers", "[install]") {
    namespace F = rensa::functions;
    rensa::global_generator().seed(1);
    auto model = std::make_shared<rensa::links::Linear>(3, 2);
    rensa::optimizers::SGD optimizer({.lr = 0.1});
    optimizer.setup(model);
    const Array x = rensa::ops::normal(Shape{5, 3});
    const auto loss = [&] { return F::sum(F::square((*model)(Variable(x, false)))); };
    const double before = loss().array().item<float>();
    optimizer.update(loss);
    const double after = loss().array().item<float>();
    CHECK(after < before);
}

}  // namespace
