#pragma once
// Helpers for the error messages of training/: the names a lookup could have used.

#include <sstream>
#include <string>

#include "core/error.h"

namespace rensa::training::detail {

// The keys of a map (or any range of pairs) quoted and comma-separated: "'a', 'b'".
template <class Map>
[[nodiscard]] std::string quoted_names(const Map& map) {
    std::ostringstream os;
    const char* sep = "";
    for (const auto& entry : map) {
        os << sep << "'" << entry.first << "'";
        sep = ", ";
    }
    return os.str();
}

// map.at(name) for a map of pointers, dereferenced: KeyError "<op>: no <what> named 'x'
// (<what>s: ['a', 'b'])" when there is none.
template <class Map>
[[nodiscard]] auto& find_named(const Map& map, const std::string& name, const char* op, const char* what) {
    const auto found = map.find(name);
    RENSA_CHECK(found != map.end(), KeyError, op, ": no ", what, " named '", name, "' (", what, "s: [",
                quoted_names(map), "])");
    return *found->second;
}

}  // namespace rensa::training::detail
