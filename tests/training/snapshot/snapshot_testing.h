#pragma once
// Helpers of the snapshot tests: a temporary folder, an updater that only counts, and a
// serializable object whose save can be made to fail halfway.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/array.h"
#include "core/error.h"
#include "serializers/serializer.h"
#include "training/updater.h"

namespace rensa::testing {

// A unique folder under the system's temporary folder, removed with its contents.
class SnapshotDir {
public:
    explicit SnapshotDir(const std::string& name)
        : path_{std::filesystem::temp_directory_path() /
                ("rensa_snapshot_" + std::to_string(::getpid()) + "_" + name)} {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~SnapshotDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    SnapshotDir(const SnapshotDir&) = delete;
    SnapshotDir& operator=(const SnapshotDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::string str() const { return path_.string(); }
    // The names of the entries in the folder, sorted.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator{path_}) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    std::filesystem::path path_;
};

inline std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in{path, std::ios::binary};
    return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

// An updater without data or optimizers: update() counts, `per_epoch` iterations make an
// epoch; serializes "iteration" like StandardUpdater.
class CountingUpdater : public training::Updater {
public:
    explicit CountingUpdater(int64_t per_epoch = 10) : per_epoch_{per_epoch} {}
    optimizers::Optimizer& get_optimizer(const std::string& name) override {
        RENSA_THROW(KeyError, "CountingUpdater: no optimizer '", name, "'");
    }
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> get_all_optimizers() override { return {}; }
    training::Iterator& get_iterator(const std::string& name) override {
        RENSA_THROW(KeyError, "CountingUpdater: no iterator '", name, "'");
    }
    void update() override { ++iteration_; }
    int64_t iteration() const override { return iteration_; }
    int64_t epoch() const override { return iteration_ / per_epoch_; }
    double epoch_detail() const override { return static_cast<double>(iteration_) / static_cast<double>(per_epoch_); }
    std::optional<double> previous_epoch_detail() const override {
        if (iteration_ == 0) return std::nullopt;
        return static_cast<double>(iteration_ - 1) / static_cast<double>(per_epoch_);
    }
    bool is_new_epoch() const override { return iteration_ > 0 && iteration_ % per_epoch_ == 0; }
    void serialize(const serializers::Serializer& s) override { s("iteration", iteration_); }

private:
    int64_t per_epoch_;
    int64_t iteration_ = 0;
};

// A few arrays and a counter; saving throws after `fail_after` arrays when >= 0.
struct Payload {
    std::vector<Array> arrays;
    int64_t count = 0;
    int fail_after = -1;
    void serialize(const serializers::Serializer& s) {
        for (size_t i = 0; i < arrays.size(); ++i) {
            if (!s.is_loading() && fail_after >= 0 && static_cast<int>(i) == fail_after)
                RENSA_THROW(ValueError, "Payload: failing on purpose at array ", i);
            std::string key = "a";  // not "a" + to_string(i): GCC 12 warns falsely (-Wrestrict)
            key += std::to_string(i);
            s(key, arrays[i]);
        }
        s("count", count);
    }
};

// A Payload of `n` float32 arrays of `size` elements, filled from `seed`.
inline std::shared_ptr<Payload> make_payload(int n, int64_t size, float seed) {
    auto p = std::make_shared<Payload>();
    for (int i = 0; i < n; ++i) {
        std::vector<float> v(static_cast<size_t>(size));
        for (int64_t k = 0; k < size; ++k) v[static_cast<size_t>(k)] = seed + static_cast<float>(i * 1000 + k);
        p->arrays.push_back(Array::from_vector<float>(v, {size}));
    }
    p->count = static_cast<int64_t>(seed);
    return p;
}

}  // namespace rensa::testing
