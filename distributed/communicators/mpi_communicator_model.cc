// The model-level collectives of MpiCommunicatorBase: bcast_data (with its agreement
// check), multi_node_mean_grad and the gradient buckets' reducers.

#include <algorithm>
#include <sstream>

#include "distributed/communicators/detail/array_codec.h"
#include "distributed/communicators/detail/mpi_chunks.h"
#include "distributed/communicators/mpi_communicator_base.h"
#include "distributed/detail/bucket_reducer.h"
#include "distributed/detail/grad_buckets.h"
#include "distributed/detail/link_data.h"

namespace rensa::distributed {
namespace {

// multi_node_mean_grad keeps the buckets of this many links (a GAN's two models, say).
constexpr size_t kMaxCachedLinks = 4;
// Its bucket size: no overlap to gain from small buckets there.
constexpr int64_t kMeanGradBucketBytes = int64_t{64} << 20;

using detail::NamedArray;
using detail::sorted_data;

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

// The verdict of a rank whose arrays rank 0 writes into: the first of them over read-only
// memory ("" when none; see Note [Read-only memory] in core/storage.h).
std::string first_read_only(const std::vector<NamedArray>& entries, int rank) {
    for (const NamedArray& e : entries) {
        if (!e.array.writeable()) {
            return rensa::detail::concat("rank ", rank, ": '", e.name,
                                         "' is over read-only memory (assignment destination is read-only)");
        }
    }
    return {};
}

}  // namespace

void MpiCommunicatorBase::bcast_data(links::Link& link) {
    const std::vector<NamedArray> entries = sorted_data(link);
    const std::vector<std::string> mine = describe(entries);
    const std::vector<std::string> root = split_lines(bcast_obj(join_lines(mine), 0));
    // Every rank learns every rank's verdict, so that all of them raise the same error.
    std::string verdict = first_difference(mine, root, rank_);
    const bool differs = !verdict.empty();
    if (!differs && rank_ != 0) verdict = first_read_only(entries, rank_);
    for (const std::string& v : allgather_obj((differs ? "D" : "R") + verdict)) {
        RENSA_CHECK(v.size() == 1, distributed::MpiError, "bcast_data: ",
                    v[0] == 'D' ? "the models differ between ranks (parameter/persistent name, shape, dtype): " : "",
                    v.substr(1));
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
    detail::NamedParams params = detail::sorted_params(link, /*updating_only=*/false);
    if (params.empty()) return;
    auto found = std::find_if(mean_grad_buckets_.begin(), mean_grad_buckets_.end(),
                              [&](const auto& buckets) { return buckets->matches(params); });
    if (found == mean_grad_buckets_.end()) {
        // Every rank takes this branch at the same call: the layouts agree, and so the
        // collective that makes the buffers.
        if (mean_grad_buckets_.size() == kMaxCachedLinks) mean_grad_buckets_.erase(mean_grad_buckets_.begin());
        mean_grad_buckets_.push_back(
            std::make_unique<detail::GradBuckets>(std::move(params), *this, bucket_bytes(kMeanGradBucketBytes)));
        found = std::prev(mean_grad_buckets_.end());
        (*found)->install_destinations();
    }
    detail::GradBuckets& buckets = **found;
    buckets.reset();
    buckets.start_all();
    buckets.finish(zero_fill);
}

std::unique_ptr<detail::BucketReducer> MpiCommunicatorBase::make_bucket_reducer(
    const std::vector<detail::BucketSpec>& specs, Device device) {
    RENSA_CHECK(device == Device::native(), DeviceError, name(),
                ": gradient buckets reduced over MPI live in host memory, got ", device);
    return make_host_reducer(specs, /*node_aware=*/false);
}

std::unique_ptr<detail::BucketReducer> MpiCommunicatorBase::make_host_reducer(
    const std::vector<detail::BucketSpec>& specs, bool node_aware) {
    if (size_ == 1) return detail::make_local_bucket_reducer(specs, Device::native());
    const detail::BucketTransport transport = detail::bucket_transport_from_env();
    if (node_aware && uniform_nodes_ && intra_size_ > 1 && inter_size_ > 1) {
        return detail::make_mpi_bucket_reducer(specs, *handle_, intra_handle_, inter_handle_, transport);
    }
    return detail::make_mpi_bucket_reducer(specs, *handle_, intra_size_ == size_ ? intra_handle_ : nullptr, nullptr,
                                           transport);
}

}  // namespace rensa::distributed
