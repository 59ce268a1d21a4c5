// Interoperability with numpy (Debian's python3-numpy): files numpy writes load into
// rensa, and rensa's files load in numpy with identical values. Skipped without numpy.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "serializers/npz.h"
#include "tests/serializers/npz_testing.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::serializers;
using rensa::testing::make_tiny;
using rensa::testing::TempDir;

namespace {

// The values the numpy scripts below write (see kTinyDict).
void check_tiny_from_numpy(const testing::Tiny& t) {
    CHECK(testing::to_doubles(t.W) == std::vector<double>{1.0, 1.5, 2.0, 2.5, 3.0, 3.5});
    CHECK(testing::to_doubles(t.b) == std::vector<double>{3.0, 2.0, -1.0});
    CHECK(t.t == 42);
    CHECK(t.lr == 0.125);
    CHECK(t.flag);
    CHECK(testing::to_doubles(t.child.m) == std::vector<double>{1.0, 2.0, 3.0, 4.0});
    CHECK(t.child.count == 9);
}

const char* kTinyDict = R"(
import io, sys, zipfile
import numpy as np
W = np.arange(6, dtype='f4').reshape(2, 3) * 0.5 + 1
m = np.array([[1, 2], [3, 4]], dtype='i4')
d = {'W': W, 'b': np.array([3, 2, -1], dtype='f4'), 't': np.asarray(42), 'lr': np.asarray(0.125),
     'flag': np.asarray(True), 'child/m': m, 'child/count': np.asarray(9), 'child/lazy': np.asarray(None)}
)";

}  // namespace

TEST_CASE("npz loads numpy.savez and numpy.savez_compressed files", "[serializers][npz][numpy]") {
    RENSA_REQUIRE_NUMPY();
    TempDir dir;
    REQUIRE(testing::run_python(dir, std::string{kTinyDict} + R"(
np.savez('plain.npz', **d)
np.savez_compressed('comp.npz', **d)
)") == 0);
    for (const char* name : {"plain.npz", "comp.npz"}) {
        INFO(name);
        auto t = make_tiny(0.0);
        t.child.lazy = Array::from_vector<float>({7.f}, {1});
        load_npz(dir.path(name), t);
        check_tiny_from_numpy(t);
        CHECK(testing::to_doubles(t.child.lazy) == std::vector<double>{7.0});  // None: unchanged
    }
}

TEST_CASE("npz loads big-endian, Fortran-order and v2 and v3 headers from numpy", "[serializers][npz][numpy]") {
    RENSA_REQUIRE_NUMPY();
    TempDir dir;
    REQUIRE(testing::run_python(dir, std::string{kTinyDict} + R"(
d['W'] = np.asfortranarray(W.astype('>f4'))
d['child/m'] = np.asfortranarray(m.astype('>i4'))
d['t'] = np.asarray(42, dtype='>i8')
d['child/lazy'] = np.array([1.5, -2.5], dtype='>f8')
assert np.isfortran(d['W'])
np.savez('swapped.npz', **d)
with zipfile.ZipFile('versions.npz', 'w', compression=zipfile.ZIP_DEFLATED) as z:
    for i, (k, v) in enumerate(d.items()):
        b = io.BytesIO()
        np.lib.format.write_array(b, np.asarray(v), version=[(1, 0), (2, 0), (3, 0)][i % 3])
        z.writestr(k + '.npy', b.getvalue())
)") == 0);
    auto t = make_tiny(0.0);
    load_npz(dir.path("swapped.npz"), t);
    check_tiny_from_numpy(t);
    REQUIRE(t.child.lazy.defined());
    CHECK(t.child.lazy.dtype() == Dtype::kFloat64);
    CHECK(testing::to_doubles(t.child.lazy) == std::vector<double>{1.5, -2.5});
    auto v = make_tiny(0.0);
    load_npz(dir.path("versions.npz"), v);
    check_tiny_from_numpy(v);
}

TEST_CASE("npz files of rensa load in numpy with identical values", "[serializers][npz][numpy]") {
    RENSA_REQUIRE_NUMPY();
    TempDir dir;
    auto t = make_tiny(0.0);
    t.W = Array::from_vector<float>({1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f}, {2, 3});
    t.b = Array::from_vector<float>({3.f, 2.f, -1.f}, {3});
    t.t = 42;
    t.lr = 0.125;
    t.flag = true;
    t.child.m = Array::from_vector<int32_t>({1, 2, 3, 4}, {2, 2});
    t.child.count = 9;
    save_npz(dir.path("ours.npz"), t);
    save_npz(dir.path("ours_stored.npz"), t, {.compression = false});
    t.child.lazy = Array::from_vector<double>({0.25}, {1});
    save_npz(dir.path("lazy.npz"), t);
    REQUIRE(testing::run_python(dir, std::string{kTinyDict} + R"(
none = io.BytesIO()
np.save(none, np.array(None, dtype=object), allow_pickle=True)
def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
for name in ['ours.npz', 'ours_stored.npz', 'lazy.npz']:
    f = np.load(name, allow_pickle=False)
    assert sorted(f.files) == sorted(d), (name, f.files)
    for k, v in d.items():
        if k == 'child/lazy':
            continue
        assert same(f[k], v), (name, k, f[k], v)
    for k in ['W', 'child/m', 't', 'flag']:  # byte for byte what np.save writes
        b = io.BytesIO()
        np.save(b, d[k])
        assert zipfile.ZipFile(name).read(k + '.npy') == b.getvalue(), (name, k)
    raw = zipfile.ZipFile(name).read('child/lazy.npy')
    if name == 'lazy.npz':
        assert same(f['child/lazy'], np.array([0.25])), f['child/lazy']
    else:
        assert raw == none.getvalue(), raw  # exactly numpy's pickled None
        assert np.load(name, allow_pickle=True)['child/lazy'][()] is None
print('numpy agrees')
)") == 0);
}
