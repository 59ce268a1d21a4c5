// FunctionNode::attributes() of a few functions as a recording hook sees them (the data of
// rensa.onnx.export), and FunctionHook::forward_outputs firing with and without backprop.
// See Note [ONNX recording] in autograd/function_hook.h.

#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/function_hook.h"
#include "autograd/function_node.h"
#include "autograd/modes.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/connection/convolution.h"
#include "functions/pooling.h"

using namespace rensa;
namespace F = rensa::functions;

namespace {

struct Seen {
    std::string label;
    FunctionNode::Attributes attributes;
    std::vector<Shape> in_shapes, out_shapes;
};

class Recorder : public FunctionHook {
public:
    void forward_outputs(const FunctionNode& function, const std::vector<Array>& in_data,
                         const std::vector<Array>& out_data) override {
        Seen s{function.label(), function.attributes(), {}, {}};
        for (const Array& a : in_data) s.in_shapes.push_back(a.shape());
        for (const Array& a : out_data) s.out_shapes.push_back(a.shape());
        seen.push_back(std::move(s));
    }
    std::vector<Seen> seen;
};

const FunctionNode::AttributeValue& attribute(const Seen& s, const std::string& key) {
    for (const auto& [k, v] : s.attributes) {
        if (k == key) return v;
    }
    FAIL("no attribute " << key << " on " << s.label);
    throw std::logic_error("unreachable");
}

using Ints = std::vector<int64_t>;

Variable input(const Shape& shape, bool requires_grad) {
    return Variable(ops::full(shape, Scalar(0.5), Dtype::kFloat32), requires_grad);
}

}  // namespace

TEST_CASE("attributes: convolution, pooling, softmax and reshape as recorded", "[attributes]") {
    Recorder recorder;
    {
        FunctionHookScope scope(recorder);
        const Variable x = input({1, 2, 7, 7}, false), W = input({4, 2, 3, 3}, true);
        Variable h = F::convolution_2d(x, W, Variable(), {.stride = 2, .pad = {1, 0}, .dilate = 1, .groups = 1});
        h = F::max_pooling_2d(h, 2, {.stride = 1, .pad = 0, .cover_all = false});
        h = reshape(h, {1, 24});
        h = F::softmax(h, 1);
    }
    REQUIRE(recorder.seen.size() == 4);
    const Seen& conv = recorder.seen[0];
    CHECK(conv.label == "ConvolutionND");
    CHECK(std::get<Ints>(attribute(conv, "stride")) == Ints{2, 2});
    CHECK(std::get<Ints>(attribute(conv, "pad")) == Ints{1, 0});
    CHECK(std::get<Ints>(attribute(conv, "dilate")) == Ints{1, 1});
    CHECK(std::get<int64_t>(attribute(conv, "groups")) == 1);
    CHECK(std::get<bool>(attribute(conv, "cover_all")) == false);
    CHECK(conv.out_shapes == std::vector<Shape>{{1, 4, 4, 3}});
    const Seen& pool = recorder.seen[1];
    CHECK(pool.label == "MaxPooling");
    CHECK(std::get<Ints>(attribute(pool, "ksize")) == Ints{2, 2});
    CHECK(std::get<Ints>(attribute(pool, "stride")) == Ints{1, 1});
    CHECK(std::get<bool>(attribute(pool, "cover_all")) == false);
    CHECK(recorder.seen[2].label == "Reshape");
    CHECK(std::get<Ints>(attribute(recorder.seen[2], "shape")) == Ints{1, 24});
    CHECK(recorder.seen[3].label == "Softmax");
    CHECK(std::get<int64_t>(attribute(recorder.seen[3], "axis")) == 1);
}

TEST_CASE("attributes: scalar constants keep their kind, split_axis its cut points", "[attributes]") {
    Recorder recorder;
    {
        FunctionHookScope scope(recorder);
        const Variable x = input({2, 6}, true);
        (void)(x * 2.5);
        (void)(3 - x);
        (void)pow(x, Scalar(int64_t{2}));
        (void)F::split_axis(x, std::vector<int64_t>{2, 5}, 1);
        (void)F::leaky_relu(x, 0.125);
        (void)F::transpose(x, Axes{1, 0});
        (void)sum(x, Axes{1}, true);
    }
    REQUIRE(recorder.seen.size() == 7);
    CHECK(recorder.seen[0].label == "MulConstant");
    CHECK(std::get<double>(attribute(recorder.seen[0], "value")) == 2.5);
    CHECK(recorder.seen[1].label == "SubFromConstant");
    CHECK(std::get<int64_t>(attribute(recorder.seen[1], "value")) == 3);
    CHECK(recorder.seen[2].label == "PowByConstant");
    CHECK(std::get<int64_t>(attribute(recorder.seen[2], "value")) == 2);
    CHECK(recorder.seen[3].label == "SplitAxis");
    CHECK(std::get<Ints>(attribute(recorder.seen[3], "indices_or_sections")) == Ints{2, 5});
    CHECK(std::get<int64_t>(attribute(recorder.seen[3], "axis")) == 1);
    CHECK(recorder.seen[3].out_shapes.size() == 3);
    CHECK(std::get<double>(attribute(recorder.seen[4], "slope")) == 0.125);
    CHECK(std::get<Ints>(attribute(recorder.seen[5], "axes")) == Ints{1, 0});
    CHECK(recorder.seen[6].label == "Sum");
    CHECK(std::get<Ints>(attribute(recorder.seen[6], "axis")) == Ints{1});
    CHECK(std::get<bool>(attribute(recorder.seen[6], "keepdims")) == true);
}

TEST_CASE("attributes: get_item's slices in numpy's notation", "[attributes]") {
    Recorder recorder;
    {
        FunctionHookScope scope(recorder);
        const Variable x = input({4, 9, 2}, false);
        (void)F::get_item(x, {int64_t{-1}, Slice{2, 8, 2}, NewAxis{}, Ellipsis{}});
        (void)F::get_item(x, {Slice{std::nullopt, std::nullopt, -1}, Slice{1, std::nullopt}});
    }
    REQUIRE(recorder.seen.size() == 2);
    CHECK(recorder.seen[0].label == "GetItem");
    CHECK(std::get<std::string>(attribute(recorder.seen[0], "slices")) == "-1, 2:8:2, None, ...");
    CHECK(std::get<std::string>(attribute(recorder.seen[1], "slices")) == "::-1, 1:");
    CHECK(recorder.seen[0].out_shapes == std::vector<Shape>{{3, 1, 2}});
}

TEST_CASE("forward_outputs: fires without backprop and for inputs without grad", "[attributes]") {
    Recorder recorder;
    {
        FunctionHookScope scope(recorder);
        const Variable x = input({3}, false);
        (void)F::relu(x);  // no input requires grad: no graph is linked
        NoBackpropMode no_backprop;
        (void)F::relu(input({3}, true));
    }
    REQUIRE(recorder.seen.size() == 2);
    CHECK(recorder.seen[0].label == "ReLU");
    CHECK(recorder.seen[0].attributes.empty());
    CHECK(recorder.seen[1].out_shapes == std::vector<Shape>{{3}});
}
