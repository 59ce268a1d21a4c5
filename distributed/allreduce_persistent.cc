#include "distributed/allreduce_persistent.h"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include "core/error.h"

namespace rensa::distributed {

namespace {

// ("/bn1/avg_mean", array) for every defined floating-point persistent array, sorted.
std::vector<std::pair<std::string, Array>> float_persistents(links::Link& link) {
    std::vector<std::pair<std::string, Array>> out;
    for (const auto& [path, sub] : link.namedlinks()) {
        const std::string prefix = path == "/" ? "/" : path + "/";
        for (const auto& [name, ref] : sub->own_persistents()) {
            Array* const* array = std::get_if<Array*>(&ref);
            if (array == nullptr || !(*array)->defined() || !is_float((*array)->dtype())) continue;
            out.emplace_back(prefix + name, **array);
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

std::string describe(const std::vector<std::pair<std::string, Array>>& entries) {
    std::ostringstream out;
    for (const auto& [name, array] : entries) out << name << ' ' << array.dtype() << ' ' << array.shape() << '\n';
    return out.str();
}

// The first line where a and b differ (or "<none>").
std::string first_difference(const std::string& a, const std::string& b) {
    std::istringstream in_a{a}, in_b{b};
    std::string line_a, line_b;
    while (true) {
        const bool has_a = static_cast<bool>(std::getline(in_a, line_a));
        const bool has_b = static_cast<bool>(std::getline(in_b, line_b));
        if (!has_a && !has_b) return "<none>";
        if (!has_a || !has_b || line_a != line_b) {
            std::ostringstream out;
            out << '\'' << (has_a ? line_a : "<none>") << "' vs '" << (has_b ? line_b : "<none>") << '\'';
            return out.str();
        }
    }
}

}  // namespace

void allreduce_persistent(links::Link& link, Communicator& comm) {
    const std::vector<std::pair<std::string, Array>> entries = float_persistents(link);
    const std::vector<std::string> all = comm.allgather_obj(describe(entries));
    for (size_t r = 1; r < all.size(); ++r) {
        RENSA_CHECK(all[r] == all[0], distributed::MpiError, "allreduce_persistent: rank ", r,
                    " has other persistent arrays than rank 0 (name dtype shape): first difference ",
                    first_difference(all[0], all[r]), "; this is rank ", comm.rank());
    }
    for (const auto& [name, array] : entries) array.assign(comm.allreduce(array, ReduceOp::kMean));
}

AllreducePersistent::AllreducePersistent(std::shared_ptr<links::Link> model, CommunicatorPtr comm)
    : model_{std::move(model)}, comm_{std::move(comm)} {
    RENSA_CHECK(model_ != nullptr && comm_ != nullptr, ValueError, "AllreducePersistent: null model or communicator");
}

void AllreducePersistent::operator()(training::Trainer& trainer) {
    (void)trainer;
    allreduce_persistent(*model_, *comm_);
}

}  // namespace rensa::distributed
