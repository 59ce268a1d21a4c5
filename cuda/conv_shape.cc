#include "cuda/conv_shape.h"

#include "core/ops/convolution.h"

namespace rensa::cuda {

bool cudnn_output_size_matches(const Shape& x, const Shape& w, const Shape& y, const Shape& stride, const Shape& pad,
                               const Shape& dilate) {
    const int spatial = stride.size();
    if (x.size() != spatial + 2 || w.size() != spatial + 2 || y.size() != spatial + 2 || pad.size() != spatial ||
        dilate.size() != spatial) {
        return false;
    }
    for (int d = 0; d < spatial; ++d) {
        if (ops::conv_outsize(x[d + 2], w[d + 2], stride[d], pad[d], /*cover_all=*/false, dilate[d]) != y[d + 2]) {
            return false;
        }
    }
    return true;
}

}  // namespace rensa::cuda
