// Which convolutions go to cuDNN: only those whose output size is cuDNN's own (host logic,
// runs without a GPU). cover_all and larger deconvolution outsizes go to the direct kernels.

#include <catch2/catch.hpp>

#include "core/ops/convolution.h"
#include "cuda/conv_shape.h"

namespace rensa::cuda {
namespace {

TEST_CASE("cuda conv routing: cuDNN takes exactly its own output sizes", "[cuda][host]") {
    // 2-d, stride 2, no pad: 5 -> 2 (cuDNN, Chainer without cover_all), 3 with cover_all.
    CHECK(cudnn_output_size_matches({2, 3, 5, 5}, {4, 3, 2, 2}, {2, 4, 2, 2}, {2, 2}, {0, 0}, {1, 1}));
    CHECK(ops::conv_outsize(5, 2, 2, 0, /*cover_all=*/true) == 3);
    CHECK_FALSE(cudnn_output_size_matches({2, 3, 5, 5}, {4, 3, 2, 2}, {2, 4, 3, 3}, {2, 2}, {0, 0}, {1, 1}));
    // Only one dimension differs.
    CHECK_FALSE(cudnn_output_size_matches({2, 3, 5, 6}, {4, 3, 2, 2}, {2, 4, 2, 4}, {2, 2}, {0, 0}, {1, 1}));
    // Pad and dilation: 9 + 2 - (2 * (3 - 1) + 1) = 6, / 1 + 1 = 7.
    CHECK(cudnn_output_size_matches({1, 2, 9}, {2, 1, 3}, {1, 2, 7}, {1}, {1}, {2}));
    CHECK_FALSE(cudnn_output_size_matches({1, 2, 9}, {2, 1, 3}, {1, 2, 8}, {1}, {1}, {2}));
    // 3-d.
    CHECK(
        cudnn_output_size_matches({1, 2, 5, 6, 4}, {3, 2, 2, 3, 2}, {1, 3, 6, 3, 2}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}));
}

TEST_CASE("cuda conv routing: deconvolution sizes that map back stay with cuDNN", "[cuda][host]") {
    // A deconvolution's output x maps to its input y. Stride 2, k 3, pad 1: x of 9 and 10 both
    // give y = 5 (the floor), so both are cuDNN problems; 11 gives 6 (not 5), and a cover_all
    // deconvolution's x (8 for y = 5, whose cuDNN size is 4) is not.
    CHECK(cudnn_output_size_matches({1, 2, 9, 9}, {4, 2, 3, 3}, {1, 4, 5, 5}, {2, 2}, {1, 1}, {1, 1}));
    CHECK(cudnn_output_size_matches({1, 2, 10, 10}, {4, 2, 3, 3}, {1, 4, 5, 5}, {2, 2}, {1, 1}, {1, 1}));
    CHECK_FALSE(cudnn_output_size_matches({1, 2, 11, 11}, {4, 2, 3, 3}, {1, 4, 5, 5}, {2, 2}, {1, 1}, {1, 1}));
    CHECK(ops::deconv_outsize(5, 3, 2, 1, /*cover_all=*/true) == 8);
    CHECK_FALSE(cudnn_output_size_matches({1, 2, 8, 8}, {4, 2, 3, 3}, {1, 4, 5, 5}, {2, 2}, {1, 1}, {1, 1}));
}

TEST_CASE("cuda conv routing: mismatched ranks are not cuDNN problems", "[cuda][host]") {
    CHECK_FALSE(cudnn_output_size_matches({2, 3, 5, 5}, {4, 3, 2}, {2, 4, 2, 2}, {2, 2}, {0, 0}, {1, 1}));
    CHECK_FALSE(cudnn_output_size_matches({2, 3, 5, 5}, {4, 3, 2, 2}, {2, 4, 2, 2}, {2}, {0}, {1}));
}

}  // namespace
}  // namespace rensa::cuda
