#pragma once
// Helpers of the multi-node training tests: the process's communicator, a folder shared by
// the ranks, and gathering values from every rank.

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/array.h"
#include "distributed/communicator.h"
#include "tests/distributed/distributed_testing.h"

namespace rensa::testing {

// One "naive" communicator per process (see the common brief: created once).
inline const distributed::CommunicatorPtr& mn_comm() { return rensa::testing::shared_comm("naive"); }

// A folder under the temporary folder named by rank 0 (pid + test name) and shared by every
// rank; removed by rank 0 after every rank is done with it. Collective.
class SharedTempDir {
public:
    explicit SharedTempDir(const std::string& name) {
        const auto& comm = mn_comm();
        const std::string mine =
            (std::filesystem::temp_directory_path() / ("rensa_mn_" + std::to_string(::getpid()) + "_" + name)).string();
        path_ = comm->bcast_obj(mine, 0);
        if (comm->rank() == 0) {
            std::filesystem::remove_all(path_);
            std::filesystem::create_directories(path_);
        }
        comm->barrier();
    }
    ~SharedTempDir() {
        mn_comm()->barrier();
        if (mn_comm()->rank() == 0) {
            std::error_code ignored;
            std::filesystem::remove_all(path_, ignored);
        }
    }
    SharedTempDir(const SharedTempDir&) = delete;
    SharedTempDir& operator=(const SharedTempDir&) = delete;
    const std::string& str() const { return path_; }

private:
    std::string path_;
};

// Every rank's values, concatenated in rank order, on every rank.
inline std::vector<int64_t> allgather_values(const std::vector<int64_t>& mine) {
    std::vector<int64_t> out;
    const Array local = Array::from_vector(mine, Shape{static_cast<int64_t>(mine.size())});
    for (const Array& a : mn_comm()->allgather(local)) {
        for (const int64_t v : a.to_vector<int64_t>()) out.push_back(v);
    }
    return out;
}

}  // namespace rensa::testing
