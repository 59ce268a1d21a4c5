// Chainer's marker for an uninitialised value, np.array(None, dtype=object), as every numpy
// writes it (issue 20, item 6): numpy 2.x pickles it with protocol 4, numpy 1.17-1.26 with
// protocol 3, older numpy with protocol 2. Each spelling is matched byte for byte, never
// unpickled. The fixture data/numpy2_none.npz was written by numpy 2.4
// (data/make_numpy2_none.py).
#include <catch2/catch.hpp>
#include <string>

#include "core/error.h"
#include "serializers/npy.h"
#include "serializers/npz.h"
#include "serializers/npz_reader.h"
#include "tests/serializers/npz_testing.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::serializers;
using rensa::testing::make_tiny;

namespace {

const std::string kFixture = std::string{RENSA_TEST_SOURCE_DIR} + "/serializers/data/numpy2_none.npz";

// The pickle numpy 2.0 to 2.4 write (np.save, pickle protocol 4), as in the fixture.
const std::string kNumpy2Pickle{
    "\x80\x04\x95\x87\x00\x00\x00\x00\x00\x00\x00\x8c\x16numpy._core.multiarray\x94\x8c\x0c_reco"
    "nstruct\x94\x93\x94\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94"
    "C\x01"
    "b\x94\x87\x94R\x94(K\x01)h\x03\x8c\x05"
    "dtype\x94\x93\x94\x8c\x02O8\x94\x89\x88\x87\x94R\x94(K\x03\x8c\x01|\x94NNNJ\xff\xff\xff\xffJ"
    "\xff\xff\xff\xffK?t\x94"
    "b\x89]\x94Nat\x94"
    "b.",
    146};

// The pickle numpy up to 1.16 wrote under Python 3 (np.save, pickle protocol 2).
const std::string kNumpy116Pickle{
    "\x80\x02"
    "cnumpy.core.multiarray\n_reconstruct\nq\x00"
    "cnumpy\nndarray\nq\x01K\x00\x85q\x02"
    "c_codecs\nencode\nq\x03X\x01\x00\x00\x00"
    "bq\x04X\x06\x00\x00\x00latin1q\x05\x86q\x06Rq\x07\x87q\x08Rq\t(K\x01)cnumpy\ndtype\nq\nX\x02\x00\x00\x00O"
    "8q\x0b\x89\x88\x87q\x0cRq\x0d(K\x03X\x01\x00\x00\x00|q\x0eNNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK"
    "?tq\x0f"
    "b\x89]q\x10Natq\x11"
    "b.",
    190};

}  // namespace

TEST_CASE("npz loads the None marker numpy 2 writes", "[serializers][npz][none]") {
    auto lazy = make_tiny(0.0);  // child.lazy undefined: stays undefined
    load_npz(kFixture, lazy);
    CHECK_FALSE(lazy.child.lazy.defined());
    CHECK(testing::to_doubles(lazy.W) == std::vector<double>{0.0, 0.5, 1.0, 1.5, 2.0, 2.5});
    CHECK(testing::to_doubles(lazy.b) == std::vector<double>{-1.0, 0.0, 1.0});
    CHECK(lazy.t == 11);
    CHECK(lazy.lr == 0.25);
    CHECK(lazy.flag);
    CHECK(testing::to_doubles(lazy.child.m) == std::vector<double>{0.0, 3.0, 6.0, 9.0});
    CHECK(lazy.child.count == 42);
    auto defined = make_tiny(0.0);  // a defined value keeps its contents, as in Chainer
    defined.child.lazy = Array::from_vector<float>({7.f}, {1});
    load_npz(kFixture, defined);
    CHECK(testing::to_doubles(defined.child.lazy) == std::vector<double>{7.0});
    CHECK(NpzReader::open_file(kFixture).read("child/lazy").is_none);
}

TEST_CASE("npy recognises the None pickles of numpy 1.x and 2.x byte for byte", "[serializers][npy][none]") {
    CHECK(npy::is_none_pickle(kNumpy2Pickle));
    CHECK(npy::is_none_pickle(kNumpy116Pickle));
    CHECK(npy::is_none_pickle(npy::kNonePickle));  // numpy 1.17-1.26, what rensa writes
    CHECK(static_cast<int64_t>(kNumpy116Pickle.size()) <= npy::kMaxNonePickleBytes);
    for (const std::string& pickle : {kNumpy2Pickle, kNumpy116Pickle, std::string{npy::kNonePickle}}) {
        for (size_t at = 0; at < pickle.size(); ++at) {
            std::string changed = pickle;
            changed[at] = static_cast<char>(changed[at] ^ 0x20);
            INFO("byte " << at);
            CHECK_FALSE(npy::is_none_pickle(changed));
        }
        CHECK_FALSE(npy::is_none_pickle(pickle.substr(0, pickle.size() - 1)));
        CHECK_FALSE(npy::is_none_pickle(pickle + "."));
    }
}
