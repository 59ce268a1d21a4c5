#pragma once
// The data bcast_data moves (internal): a link's initialised parameters and persistent
// arrays by name, and whether they already agree bit for bit on every rank (what the
// multi-node optimizer asks after a broadcast, see Note [Multi-node update]).

#include <string>
#include <vector>

#include "core/array.h"
#include "distributed/communicator.h"
#include "links/link.h"

namespace rensa::distributed::detail {

struct NamedArray {
    std::string name;
    Array array;
};

// Initialised parameters and persistent arrays of `link`, sorted by name.
[[nodiscard]] std::vector<NamedArray> sorted_data(links::Link& link);

// True on every rank when every rank holds the same names, shapes, dtypes and bytes in
// sorted_data(link) (a 64-bit digest of each rank's data, gathered). Collective.
[[nodiscard]] bool same_data_on_every_rank(Communicator& comm, links::Link& link);

}  // namespace rensa::distributed::detail
