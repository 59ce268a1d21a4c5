// Index arrays and labels that live on cuda:0 are not copied back to be checked: they wrap
// modulo the axis length on the device, as CuPy's do (Note [Device index wrap]); host index
// arrays are still checked. Losses with device labels match native for valid labels.

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "core/ops/indexing.h"
#include "functions/functions.h"
#include "tests/cuda/cuda_testing.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("cuda: device index arrays wrap on the device", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Array x = random_array({4, 3}, Dtype::kFloat32, 21);
    const Array wrapped = Array::from_vector<int64_t>({5, -1, 2, -6}, {4});
    const Array in_range = Array::from_vector<int64_t>({1, 3, 2, 2}, {4});
    const Array expected = ops::take(x, in_range, 0);
    CHECK(to_doubles(ops::take(x.to_device(cuda0()), wrapped.to_device(cuda0()), 0)) == to_doubles(expected));
    const Variable xc(x.to_device(cuda0()));
    CHECK(to_doubles(F::get_item(xc, wrapped.to_device(cuda0())).array()) == to_doubles(expected));
    // Two device arrays at once, and a host array (checked on the host, IndexError).
    const Array cols = Array::from_vector<int64_t>({0, 4, -1, 2}, {4});
    const Variable picked = F::get_item(xc, {wrapped.to_device(cuda0()), cols.to_device(cuda0())});
    const Variable native = F::get_item(Variable(x), {in_range, Array::from_vector<int64_t>({0, 1, 2, 2}, {4})});
    CHECK(to_doubles(picked.array()) == to_doubles(native.array()));
    CHECK_THROWS_AS(F::get_item(xc, Array::from_vector<int64_t>({7}, {1})), IndexError);
}

TEST_CASE("cuda: losses and embed_id with labels on the device match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Array x = random_array({6, 5}, Dtype::kFloat32, 22);
    const Array t = Array::from_vector<int32_t>({0, 4, -1, 2, -1, 3}, {6});
    for (const bool normalize : {true, false}) {
        const Variable on_device = F::softmax_cross_entropy(Variable(x.to_device(cuda0())),
                                                            Variable(t.to_device(cuda0())), {.normalize = normalize});
        const Variable on_host = F::softmax_cross_entropy(Variable(x), Variable(t), {.normalize = normalize});
        CHECK(to_doubles(on_device.array())[0] == Approx(to_doubles(on_host.array())[0]).epsilon(1e-5));
    }
    const Array W = random_array({4, 3}, Dtype::kFloat32, 23);
    const Array ids = Array::from_vector<int32_t>({1, 3, 0}, {3});
    CHECK(to_doubles(F::embed_id(Variable(ids.to_device(cuda0())), Variable(W.to_device(cuda0()))).array()) ==
          to_doubles(F::embed_id(Variable(ids), Variable(W)).array()));
}
