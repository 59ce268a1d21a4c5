#include "links/activation/maxout.h"

#include "core/error.h"
#include "functions/activation.h"

namespace rensa::links {

Maxout::Maxout(std::optional<int64_t> in_size, int64_t out_size, int64_t pool_size,
               initializers::InitializerPtr initialW, initializers::InitializerPtr initial_bias)
    : out_size{out_size}, pool_size{pool_size} {
    RENSA_CHECK(out_size > 0 && pool_size > 0, ValueError, "Maxout: out_size and pool_size must be positive, got ",
                out_size, " and ", pool_size);
    const bool nobias = initial_bias == nullptr;
    register_link(
        "linear", &Maxout::linear,
        std::make_shared<Linear>(in_size, out_size * pool_size, nobias, std::move(initialW), std::move(initial_bias)));
}

Variable Maxout::forward(const Variable& x) { return F::maxout(linear->forward(x), pool_size); }

}  // namespace rensa::links
