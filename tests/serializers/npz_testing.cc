#include "tests/serializers/npz_testing.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/testing/testing.h"

namespace rensa::testing {

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rensa-npz-XXXXXX").string();
    const char* made = ::mkdtemp(pattern.data());
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = made;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

const std::string& numpy_python() {
    static const std::string python = [] {
        for (const std::string& candidate :
             {std::string{RENSA_TEST_PYTHON3}, std::string{"/usr/bin/python3"}, std::string{"python3"}}) {
            const std::string probe = "\"" + candidate + "\" -c \"import numpy\" > /dev/null 2>&1";
            if (std::system(probe.c_str()) == 0) return candidate;
        }
        return std::string{};
    }();
    return python;
}

int run_python(const TempDir& dir, const std::string& script) {
    write_file(dir.path("script.py"), script);
    const std::string command = "cd \"" + dir.path("") + "\" && \"" + numpy_python() + "\" script.py";
    return std::system(command.c_str());
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out << bytes;
}

std::string read_file(const std::string& path) {
    std::ifstream in{path, std::ios::binary};
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

void TinyChild::serialize(const serializers::Serializer& s) {
    s("m", m);
    s("lazy", lazy, [this](const Array& a) { lazy = a.copy(); });
    s("count", count);
}

void Tiny::serialize(const serializers::Serializer& s) {
    s("W", W);
    s("b", b);
    s("t", t);
    s("lr", lr);
    s("flag", flag);
    child.serialize(s["child"]);
}

Tiny make_tiny(double seed) {
    Tiny t;
    t.W = make_array(iota(6, 0.5, seed), {2, 3}, Dtype::kFloat32);
    t.b = make_array(iota(3, -1.0, seed), {3}, Dtype::kFloat32);
    t.t = static_cast<int64_t>(seed) + 7;
    t.lr = seed / 8.0;
    t.flag = static_cast<int64_t>(seed) % 2 == 1;
    t.child.m = make_array(iota(4, 1.0, seed), {2, 2}, Dtype::kInt32);
    t.child.count = static_cast<int64_t>(seed) * 3;
    return t;
}

std::vector<double> snapshot(const Tiny& t) {
    std::vector<double> out = to_doubles(t.W);
    for (const Array& a : {t.b, t.child.m, t.child.lazy}) {
        if (!a.defined()) {
            out.push_back(-12345.0);  // marks "undefined"
            continue;
        }
        const std::vector<double> v = to_doubles(a);
        out.insert(out.end(), v.begin(), v.end());
    }
    out.insert(out.end(), {static_cast<double>(t.t), t.lr, t.flag ? 1.0 : 0.0, static_cast<double>(t.child.count)});
    return out;
}

}  // namespace rensa::testing
