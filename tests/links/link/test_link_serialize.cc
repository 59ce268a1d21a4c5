// Link::serialize: key names and order, lazy parameters and NPZ round trips.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "serializers/npz.h"
#include "tests/testing/testing.h"
#include "toy_links.h"

namespace rensa::links {
namespace {

using testing::Net;
using testing::Toy;

// Records what a save visits, in order (undefined arrays are Chainer's None).
class RecordingSaver : public serializers::SerializerBackend {
public:
    std::vector<std::pair<std::string, Array>> saved;
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array& value) override {
        saved.emplace_back(key, value.defined() ? value.copy() : Array{});
    }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return {}; }
    void defer(std::function<void()>) override {}
};

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("rensa_link_" + name + ".npz")).string();
}

TEST_CASE("serialize visits params then persistents then children with Chainer's keys", "[links][link]") {
    Net net;
    auto saver = std::make_shared<RecordingSaver>();
    net.serialize(serializers::Serializer{saver});
    std::vector<std::string> keys;
    for (const auto& [key, value] : saver->saved) keys.push_back(key);
    const std::vector<std::string> expected = {"l1/W",       "l1/b",       "l1/avg",       "l1/count",
                                               "blocks/0/W", "blocks/0/b", "blocks/0/avg", "blocks/0/count",
                                               "blocks/1/W", "blocks/1/b", "blocks/1/avg", "blocks/1/count",
                                               "l2/W",       "l2/b",       "l2/avg",       "l2/count"};
    CHECK(keys == expected);
    CHECK_FALSE(saver->saved[0].second.defined());  // lazy l1/W: None
    CHECK(saver->saved[3].second.dtype() == Dtype::kInt64);
    CHECK(saver->saved[3].second.ndim() == 0);
}

TEST_CASE("save_npz and load_npz round-trip a chain, initialising lazy parameters", "[links][link]") {
    Net src;
    src(Variable(rensa::testing::make_array({1, 2, 3, 4, 5, 6}, {2, 3}, Dtype::kFloat32)));
    src.blocks->child("1").persistent_array("avg").fill(4.0);
    const std::string path = temp_path("roundtrip");
    serializers::save_npz(path, src);

    Net dst;
    REQUIRE_FALSE(dst.l1->W.is_initialized());
    const Array dst_l2_W = dst.l2->W.array();
    serializers::load_npz(path, dst);
    std::remove(path.c_str());
    REQUIRE(dst.l1->W.is_initialized());
    CHECK(dst.l1->W.shape() == Shape{3, 3});
    CHECK(dst.l1->W.dtype() == Dtype::kFloat32);
    const auto a = src.namedparams();
    const auto b = dst.namedparams();
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) rensa::testing::check_allclose(b[i].second.array(), a[i].second.array());
    CHECK(dst.l2->W.array().storage() == dst_l2_W.storage());  // loaded in place
    CHECK(dst.blocks->child("1").persistent_array("avg").to_vector<double>() == std::vector<double>(3, 4.0));
    CHECK(dst.l1->count == 1);
}

TEST_CASE("load_npz into a link of another shape fails and changes nothing", "[links][link]") {
    Toy small(2, 2);
    const std::string path = temp_path("mismatch");
    serializers::save_npz(path, small);
    Toy big(3, 2);
    const std::vector<double> before = big.W.array().to_vector<double>();
    CHECK_THROWS_AS(serializers::load_npz(path, big), DimensionError);
    CHECK(big.W.array().to_vector<double>() == before);
    Chain other;
    other.add_param("V", Shape{1});
    CHECK_THROWS_AS(serializers::load_npz(path, other), KeyError);
    std::remove(path.c_str());
}

TEST_CASE("None markers round-trip lazy parameters and persistent arrays", "[links][link]") {
    Chain src;
    src.add_param("lazy");
    src.add_param("p", Shape{2}, Dtype::kFloat32, initializers::constant(3.0));
    src.add_persistent("state", Array{});
    src.add_persistent("mean", ops::full({2}, 1.5, Dtype::kFloat32));
    const std::string path = temp_path("none");
    serializers::save_npz(path, src);

    Chain dst;
    dst.add_param("lazy");
    dst.add_param("p");  // lazy here: initialised from the file
    dst.add_persistent("state", Array{});
    dst.add_persistent("mean", Array{});
    serializers::load_npz(path, dst);
    std::remove(path.c_str());
    CHECK_FALSE(dst.param("lazy").is_initialized());
    REQUIRE(dst.param("p").is_initialized());
    CHECK(dst.param("p").array().to_vector<double>() == std::vector<double>(2, 3.0));
    CHECK_FALSE(dst.persistent_array("state").defined());
    CHECK(dst.persistent_array("mean").to_vector<double>() == std::vector<double>(2, 1.5));
}

}  // namespace
}  // namespace rensa::links
