#include "links/connection/embed_id.h"

#include "core/error.h"
#include "functions/connection.h"
#include "links/initializers.h"

namespace rensa::links {

EmbedID::EmbedID(int64_t in_size, int64_t out_size, initializers::InitializerPtr initialW,
                 std::optional<int64_t> ignore_label)
    : ignore_label_{ignore_label} {
    RENSA_CHECK(in_size >= 0 && out_size >= 0, ValueError, "EmbedID: in_size=", in_size, " and out_size=", out_size,
                " must be >= 0");
    auto init = initializers::or_default(std::move(initialW), std::make_shared<initializers::Normal>(1.0));
    register_param("W", &EmbedID::W, Parameter(init, Shape{in_size, out_size}));
}

Variable EmbedID::forward(const Variable& x) { return F::embed_id(x, W, ignore_label_); }

}  // namespace rensa::links
