#pragma once
// Shared pieces of the NPZ tests: a temporary folder, Debian's python3 with numpy,
// and a tiny serializable model with a child and a lazily initialised array.

#include <filesystem>
#include <string>
#include <vector>

#include "core/array.h"
#include "serializers/serializer.h"

namespace rensa::testing {

// A fresh folder under the system temp dir, removed with everything in it.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

private:
    std::filesystem::path dir_;
};

// The first of RENSA_TEST_PYTHON3, /usr/bin/python3 and python3 that imports numpy;
// empty when none does (the tests then WARN and return).
const std::string& numpy_python();
// Writes `script` to `dir` and runs it there; returns its exit status.
int run_python(const TempDir& dir, const std::string& script);

void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);

struct TinyChild {
    Array m;
    Array lazy;  // undefined until loaded (like an uninitialised Parameter)
    int64_t count = 0;
    void serialize(const serializers::Serializer& s);
};

struct Tiny {
    Array W;  // float32 (2, 3)
    Array b;  // float32 (3,)
    int64_t t = 0;
    double lr = 0.0;
    bool flag = false;
    TinyChild child;
    void serialize(const serializers::Serializer& s);
};

// A Tiny with values derived from `seed` (child.m is int32 (2, 2)); lazy stays undefined.
Tiny make_tiny(double seed);
// Every value of `t` flattened (arrays as doubles, then scalars) to compare two models.
std::vector<double> snapshot(const Tiny& t);

}  // namespace rensa::testing

// Skips the rest of a TEST_CASE (with a warning) when python3 with numpy is missing.
#define RENSA_REQUIRE_NUMPY()                                          \
    do {                                                               \
        if (rensa::testing::numpy_python().empty()) {                  \
            WARN("python3 with numpy not found: numpy tests skipped"); \
            return;                                                    \
        }                                                              \
    } while (false)
