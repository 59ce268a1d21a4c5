// The model-level collectives of MpiCommunicatorBase: bcast_data (with its agreement
// check) and multi_node_mean_grad.

#include <algorithm>
#include <sstream>

#include "distributed/communicators/detail/array_codec.h"
#include "distributed/communicators/detail/mpi_chunks.h"
#include "distributed/communicators/mpi_communicator_base.h"

namespace rensa::distributed {
namespace {

struct NamedArray {
    std::string name;
    Array array;
};

// Initialised parameters and persistent arrays of `link`, sorted by name.
std::vector<NamedArray> sorted_data(links::Link& link) {
    std::vector<NamedArray> entries;
    for (const auto& [name, param] : link.namedparams(false)) entries.push_back({name, param.array()});
    for (const auto& [path, sub] : link.namedlinks()) {
        for (const auto& [name, ref] : sub->own_persistents()) {
            Array* const* array = std::get_if<Array*>(&ref);
            if (array == nullptr || !(*array)->defined()) continue;
            entries.push_back({(path == "/" ? "/" : path + "/") + name, **array});
        }
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return entries;
}

// One line per array: "name shape dtype".
std::vector<std::string> describe(const std::vector<NamedArray>& entries) {
    std::vector<std::string> lines;
    for (const NamedArray& e : entries) {
        std::ostringstream os;
        os << e.name << ' ' << e.array.shape() << ' ' << e.array.dtype();
        lines.push_back(os.str());
    }
    return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& line : lines) out += line + '\n';
    return out;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);) lines.push_back(line);
    return lines;
}

// The first difference between this rank's arrays and rank 0's ("" when none).
std::string first_difference(const std::vector<std::string>& mine, const std::vector<std::string>& root, int rank) {
    for (size_t i = 0; i < std::min(mine.size(), root.size()); ++i) {
        if (mine[i] == root[i]) continue;
        return rensa::detail::concat("rank ", rank, " has '", mine[i], "' where rank 0 has '", root[i], "'");
    }
    if (mine.size() > root.size()) {
        return rensa::detail::concat("rank ", rank, " has '", mine[root.size()], "' that rank 0 lacks (", mine.size(),
                                     " arrays against ", root.size(), ")");
    }
    if (mine.size() < root.size()) {
        return rensa::detail::concat("rank ", rank, " lacks '", root[mine.size()], "' of rank 0 (", mine.size(),
                                     " arrays against ", root.size(), ")");
    }
    return {};
}

}  // namespace

void MpiCommunicatorBase::bcast_data(links::Link& link) {
    const std::vector<NamedArray> entries = sorted_data(link);
    const std::vector<std::string> mine = describe(entries);
    const std::vector<std::string> root = split_lines(bcast_obj(join_lines(mine), 0));
    // Every rank learns every rank's verdict, so that all of them raise the same error.
    const std::vector<std::string> verdicts = allgather_obj(first_difference(mine, root, rank_));
    for (const std::string& verdict : verdicts) {
        RENSA_CHECK(verdict.empty(), distributed::MpiError,
                    "bcast_data: the models differ between ranks (parameter/persistent name, shape, dtype): ", verdict);
    }
    std::vector<Array> arrays;
    for (const NamedArray& e : entries) arrays.push_back(e.array);
    bcast_arrays(arrays);
}

void MpiCommunicatorBase::bcast_arrays(const std::vector<Array>& arrays) {
    for (const Array& array : arrays) {
        detail::OpGuard guard{handle(),
                              {.op = "bcast_data", .dtype = array.dtype(), .shape = array.shape(), .root = 0}};
        const Array data = detail::host_contiguous(array);
        detail::bcast_chunked(handle().comm(), data.raw_data(), data.nbytes(), 0);
        if (data.storage() != array.storage()) array.assign(data.to_device(array.device()));
    }
}

void MpiCommunicatorBase::multi_node_mean_grad(links::Link& link, bool zero_fill) {
    auto params = link.namedparams(false);
    std::sort(params.begin(), params.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Array> grads;
    for (const auto& [name, param] : params) {
        if (!param.grad().defined()) {
            if (!zero_fill) continue;
            param.zerograd();
        }
        grads.push_back(param.grad());
    }
    mean_grads(grads);
}

}  // namespace rensa::distributed
