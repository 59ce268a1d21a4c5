// Parameters over read-only memory (Note [Read-only memory] in core/storage.h): an update, a
// load_npz and a gradient destination raise ValueError naming the parameter or key before
// anything changes.

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "optimizers/momentum_sgd.h"
#include "serializers/npz.h"
#include "tests/optimizers/optimizer_check.h"

using namespace rensa;
using Catch::Matchers::Contains;

namespace {

// A read-only float32 array of shape {5} over `buffer`.
Array read_only_over(std::vector<float>& buffer) {
    auto storage = std::make_shared<Storage>(buffer.data(), static_cast<int64_t>(buffer.size() * sizeof(float)),
                                             Device::native(), nullptr, true);
    return Array(std::move(storage), Shape{5}, Strides{4}, 0, Dtype::kFloat32);
}

// Two parameters: "a" (writeable) and "w" (read-only, over `buffer`).
class TwoParams : public links::Link {
public:
    links::Parameter a, w;
    explicit TwoParams(std::vector<float>& buffer) {
        register_param("a", &TwoParams::a, links::Parameter(Array::from_vector<float>({1, 2, 3, 4, 5}, {5})));
        register_param("w", &TwoParams::w, links::Parameter(read_only_over(buffer)));
    }
};

}  // namespace

TEST_CASE("read-only parameters: an update raises before the step count or state change", "[optimizers][read_only]") {
    std::vector<float> buffer = {1.5F, -2.0F, 0.5F, 3.0F, -0.25F};
    const std::vector<float> before = buffer;
    auto link = std::make_shared<TwoParams>(buffer);
    optimizers::MomentumSGD optimizer({.lr = 0.05, .momentum = 0.8});
    optimizer.setup(link);
    link->w.set_grad(Array::from_vector<float>({1, 1, 1, 1, 1}, {5}));
    CHECK_THROWS_AS(optimizer.update(), ValueError);
    CHECK_THROWS_WITH(optimizer.update(),
                      Contains("update of parameter 'w'") && Contains("assignment destination is read-only"));
    CHECK(buffer == before);
    const auto* rule = dynamic_cast<const optimizers::UpdateRule*>(link->w.update_rule());
    REQUIRE(rule != nullptr);
    CHECK(rule->t == 0);
    CHECK(rule->state.empty());
}

TEST_CASE("read-only parameters: load_npz raises naming the key and loads nothing", "[optimizers][read_only]") {
    std::vector<float> source_buffer = {9, 9, 9, 9, 9};
    std::vector<float> buffer = {1.5F, -2.0F, 0.5F, 3.0F, -0.25F};
    const std::vector<float> before = buffer;
    const auto path = (std::filesystem::temp_directory_path() / "rensa_read_only_param.npz").string();
    {
        TwoParams source(source_buffer);
        source.a.array().fill(Scalar{7.0});
        serializers::save_npz(path, source);
    }
    TwoParams target(buffer);
    CHECK_THROWS_AS(serializers::load_npz(path, target), ValueError);
    CHECK_THROWS_WITH(serializers::load_npz(path, target),
                      Contains("load of 'w'") && Contains("assignment destination is read-only"));
    CHECK(testing::to_doubles(target.a.array()) == std::vector<double>{1, 2, 3, 4, 5});  // all or nothing
    CHECK(buffer == before);
    std::filesystem::remove(path);
}

TEST_CASE("read-only parameters: a read-only gradient destination is refused", "[optimizers][read_only]") {
    std::vector<float> buffer(5, 0.0F);
    TwoParams link(buffer);
    CHECK_THROWS_AS(link.a.set_grad_destination(read_only_over(buffer)), ValueError);
    CHECK_THROWS_WITH(link.a.set_grad_destination(read_only_over(buffer)),
                      Contains("Variable.grad_destination") && Contains("assignment destination is read-only"));
}
