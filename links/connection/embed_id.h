#pragma once
// EmbedID (chainer.links.EmbedID): a table of embeddings looked up by integer ids.

#include <cstdint>
#include <optional>

#include "links/initializer.h"
#include "links/link.h"

namespace rensa::links {

class EmbedID : public Cloneable<EmbedID> {
public:
    Parameter W;  // (in_size, out_size): one row per id; Normal(1.0) by default

    // Chainer's EmbedID(in_size, out_size, initialW, ignore_label): ids in [0, in_size);
    // ignore_label (when set) maps to a zero vector.
    EmbedID(int64_t in_size, int64_t out_size, initializers::InitializerPtr initialW = nullptr,
            std::optional<int64_t> ignore_label = std::nullopt);

    using Link::forward;
    // F::embed_id(x, W, ignore_label): shape x.shape + (out_size,). ValueError on ids out of range.
    Variable forward(const Variable& x) override;

    std::optional<int64_t> ignore_label() const { return ignore_label_; }

private:
    std::optional<int64_t> ignore_label_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
