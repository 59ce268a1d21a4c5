#pragma once
// Private to the LSTM links of links/connection: the gates a, i, f, o of an LSTM input
// (batch, 4 * units), interleaved as Chainer's links cut them
// (reshape(batch, units, 4) and split along the last axis).

#include <array>
#include <vector>

#include "autograd/shape_ops.h"
#include "functions/array.h"

namespace rensa::links::detail {

inline std::array<Variable, 4> lstm_gates(const Variable& lstm_in) {
    const int64_t batch = lstm_in.shape()[0], units = lstm_in.shape()[1] / 4;
    const std::vector<Variable> parts = F::split_axis(reshape(lstm_in, {batch, units, 4}), 4, 2);
    return {reshape(parts[0], {batch, units}), reshape(parts[1], {batch, units}), reshape(parts[2], {batch, units}),
            reshape(parts[3], {batch, units})};
}

}  // namespace rensa::links::detail
