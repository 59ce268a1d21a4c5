// config().dtype (Chainer's config.dtype): parameters that name no dtype take it when they are
// initialised; BatchNormalization keeps float32 statistics under mixed16.
#include <catch2/catch.hpp>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "links/connection/linear.h"
#include "links/normalization/batch_normalization.h"

namespace rensa::links {
namespace {

TEST_CASE("parameters without a dtype take config().dtype when initialised", "[links][link]") {
    Linear eager(3, 2);
    CHECK(eager.W.dtype() == Dtype::kFloat32);
    Linear lazy(std::nullopt, 2, /*nobias=*/true);  // a bias would be float32 already, as in Chainer
    {
        ConfigScope<Dtype> half{&Config::dtype, Dtype::kFloat16};
        CHECK(lazy.W.dtype() == Dtype::kFloat16);  // not fixed before it is initialised
        Linear now(3, 2);
        CHECK(now.W.dtype() == Dtype::kFloat16);
        CHECK(now.b.dtype() == Dtype::kFloat16);
        lazy(Variable(ops::zeros({1, 4}, Dtype::kFloat16)));
    }
    CHECK(lazy.W.dtype() == Dtype::kFloat16);  // fixed when it was initialised
    CHECK(Parameter(nullptr, Shape{2}, Dtype::kFloat64).dtype() == Dtype::kFloat64);
}

TEST_CASE("BatchNormalization under mixed16 keeps float32 parameters and statistics", "[links][link]") {
    ConfigScope<Dtype> half{&Config::dtype, Dtype::kFloat16};
    ConfigScope<bool> mixed{&Config::mixed16, true};
    BatchNormalization bn(Shape{3});
    CHECK(bn.gamma.dtype() == Dtype::kFloat32);
    CHECK(bn.avg_mean.dtype() == Dtype::kFloat32);
    ConfigScope<Dtype> wide{&Config::dtype, Dtype::kFloat64};
    ConfigScope<bool> plain{&Config::mixed16, false};
    BatchNormalization bn64(Shape{3});
    CHECK(bn64.gamma.dtype() == Dtype::kFloat64);
}

}  // namespace
}  // namespace rensa::links
