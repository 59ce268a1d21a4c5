#pragma once
// Shared by the tests of Chainer's pretrained vision models (tests/links/model/test_vision_*
// of VGGLayers, ResNetLayers, GoogLeNet): a temporary NPZ path, parameter lookups, and the
// round trip through save_npz and the pretrained_model argument.

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "links/link.h"
#include "serializers/npz.h"

namespace rensa::testing {

// A temporary file path that removes itself.
struct TempNpz {
    std::filesystem::path path;
    explicit TempNpz(const std::string& tag)
        : path(std::filesystem::temp_directory_path() /
               ("rensa_pretrained_" + tag + "_" + std::to_string(getpid()) + ".npz")) {}
    ~TempNpz() { std::filesystem::remove(path); }
    TempNpz(const TempNpz&) = delete;
    TempNpz& operator=(const TempNpz&) = delete;
};

inline bool has_param(const links::Link& link, const std::string& name) {
    const auto params = link.namedparams();
    return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

inline int64_t param_size(const links::Link& link) {
    int64_t n = 0;
    for (const auto& [name, p] : link.namedparams()) n += p.array().size();
    return n;
}

}  // namespace rensa::testing
