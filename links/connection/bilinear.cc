#include "links/connection/bilinear.h"

#include "core/error.h"
#include "functions/connection.h"
#include "links/initializers.h"

namespace rensa::links {

namespace {

initializers::InitializerPtr lecun(initializers::InitializerPtr initializer) {
    return initializers::or_default(std::move(initializer), std::make_shared<initializers::LeCunNormal>());
}

// Features of x after the batch axis (F::bilinear flattens them).
int64_t features(const Variable& x) {
    int64_t n = 1;
    for (int i = 1; i < x.ndim(); ++i) n *= x.shape()[i];
    return n;
}

}  // namespace

Bilinear::Bilinear(int64_t left_size, int64_t right_size, int64_t out_size, bool nobias,
                   initializers::InitializerPtr initialW, std::optional<BilinearInitialBias> initial_bias) {
    RENSA_CHECK(left_size >= 0 && right_size >= 0 && out_size >= 0, ValueError,
                "Bilinear: sizes must be >= 0, got left_size=", left_size, ", right_size=", right_size,
                ", out_size=", out_size);
    register_param("W", &Bilinear::W, Parameter(lecun(std::move(initialW)), Shape{left_size, right_size, out_size}));
    if (nobias) return;
    // Chainer: None gives (LeCunNormal, LeCunNormal, 0); a tuple maps each None to LeCunNormal.
    const BilinearInitialBias init =
        initial_bias ? BilinearInitialBias{lecun(initial_bias->V1), lecun(initial_bias->V2), lecun(initial_bias->b)}
                     : BilinearInitialBias{lecun(nullptr), lecun(nullptr), initializers::constant(0)};
    register_param("V1", &Bilinear::V1, Parameter(init.V1, Shape{left_size, out_size}));
    register_param("V2", &Bilinear::V2, Parameter(init.V2, Shape{right_size, out_size}));
    register_param("b", &Bilinear::b, Parameter(init.b, Shape{out_size}));
}

Variable Bilinear::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, "Bilinear: takes (e1, e2), got ", xs.size(), " inputs");
    const Variable &e1 = xs[0], &e2 = xs[1];
    RENSA_CHECK(e1.ndim() >= 2 && features(e1) == W.shape()[0], DimensionError, "Bilinear: e1 of shape ", e1.shape(),
                " does not have left_size=", W.shape()[0], " features");
    RENSA_CHECK(e2.ndim() >= 2 && features(e2) == W.shape()[1], DimensionError, "Bilinear: e2 of shape ", e2.shape(),
                " does not have right_size=", W.shape()[1], " features");
    return F::bilinear(e1, e2, W, V1, V2, b);
}

}  // namespace rensa::links
