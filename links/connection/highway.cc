#include "links/connection/highway.h"

#include "autograd/basic_math.h"
#include "core/error.h"

namespace rensa::links {

Highway::Highway(int64_t in_out_size, const HighwayOptions& options) : activate_{options.activate} {
    RENSA_CHECK(activate_ != nullptr, ValueError, "Highway: activate must be a function");
    register_link("plain", &Highway::plain,
                  std::make_shared<Linear>(in_out_size, in_out_size, options.nobias, options.init_Wh, options.init_bh));
    register_link("transform", &Highway::transform,
                  std::make_shared<Linear>(in_out_size, in_out_size, options.nobias, options.init_Wt, options.init_bt));
}

Variable Highway::forward(const Variable& x) {
    const Variable out_plain = activate_((*plain)(x));
    const Variable out_transform = F::sigmoid((*transform)(x));
    return out_plain * out_transform + x * (1.0 - out_transform);
}

}  // namespace rensa::links
