#include "training/converter.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

#include "core/error.h"

namespace rensa::training {
namespace {

// How the message names value `position` of an example: "value 1" or "key 'x'".
std::string value_name(const Example& first, size_t position) {
    return first.is_dict() ? "key '" + first.keys[position] + "'" : "value " + std::to_string(position);
}

std::string keys_repr(const std::vector<std::string>& keys) {
    std::ostringstream os;
    os << "(";
    for (size_t i = 0; i < keys.size(); ++i) os << (i ? ", " : "") << "'" << keys[i] << "'";
    os << ")";
    return os.str();
}

// Every example has the first one's length and keys (ValueError naming the example otherwise).
void check_structure(const std::vector<Example>& batch) {
    RENSA_CHECK(!batch.empty(), ValueError, "concat_examples: the batch is empty");
    const Example& first = batch[0];
    for (size_t k = 1; k < batch.size(); ++k) {
        RENSA_CHECK(batch[k].size() == first.size(), ValueError, "concat_examples: example ", k, " has ",
                    batch[k].size(), " values but example 0 has ", first.size());
        RENSA_CHECK(batch[k].keys == first.keys, ValueError, "concat_examples: example ", k, " has keys ",
                    keys_repr(batch[k].keys), " but example 0 has keys ", keys_repr(first.keys));
    }
}

// The shape each example's value is stacked as: the common shape, or with padding the
// largest size per axis. Errors name the example, the value and both shapes.
Shape stacked_shape(const std::vector<Example>& batch, size_t position, bool padded) {
    const Array& first = batch[0].values[position];
    RENSA_CHECK(first.defined(), ValueError, "concat_examples: ", value_name(batch[0], position),
                " of example 0 is undefined");
    Shape shape = first.shape();
    for (size_t k = 1; k < batch.size(); ++k) {
        const Array& v = batch[k].values[position];
        RENSA_CHECK(v.defined(), ValueError, "concat_examples: ", value_name(batch[0], position), " of example ", k,
                    " is undefined");
        RENSA_CHECK(v.device() == first.device(), DeviceError, "concat_examples: ", value_name(batch[0], position),
                    " of example ", k, " is on ", v.device(), " but example 0's is on ", first.device());
        if (padded) {
            RENSA_CHECK(v.ndim() == first.ndim(), DimensionError, "concat_examples: ", value_name(batch[0], position),
                        " of example ", k, " has shape ", v.shape(), " but example 0's has shape ", first.shape(),
                        "; padding needs the same number of dimensions");
            for (int d = 0; d < v.ndim(); ++d) shape[d] = std::max(shape[d], v.shape()[d]);
            continue;
        }
        RENSA_CHECK(v.shape() == first.shape(), DimensionError, "concat_examples: ", value_name(batch[0], position),
                    " of example ", k, " has shape ", v.shape(), " but example 0's has shape ", first.shape(),
                    "; pass a padding value to stack arrays of different shapes");
        RENSA_CHECK(v.dtype() == first.dtype(), DtypeError, "concat_examples: ", value_name(batch[0], position),
                    " of example ", k, " has dtype ", v.dtype(), " but example 0's has dtype ", first.dtype());
    }
    return shape;
}

// out[k] = v, where out[k] may be larger than v (padding fills the rest).
void copy_row(const Array& out, int64_t k, const Array& v) {
    Shape row_shape;
    Strides row_strides;
    for (int d = 1; d < out.ndim(); ++d) {
        row_shape.push_back(out.shape()[d]);
        row_strides.push_back(out.strides()[d]);
    }
    const Array row{out.storage(), row_shape, row_strides, out.offset() + k * out.strides()[0], out.dtype()};
    if (v.shape() != row_shape) {
        std::vector<Index> region;
        for (int d = 0; d < v.ndim(); ++d) region.emplace_back(Slice{0, v.shape()[d]});
        row.index(region).assign(v);
    } else if (v.dtype() == out.dtype() && v.device().kind == DeviceKind::kNative && v.is_contiguous()) {
        // The hot path: one memcpy per example (out is contiguous, so its rows are too).
        if (v.nbytes() > 0) std::memcpy(row.raw_data(), v.raw_data(), static_cast<size_t>(v.nbytes()));
    } else {
        row.assign(v);  // strided views and (with padding) other dtypes
    }
}

Array stack_position(const std::vector<Example>& batch, size_t position, const std::optional<Scalar>& padding) {
    const Shape shape = stacked_shape(batch, position, padding.has_value());
    const Array& first = batch[0].values[position];
    Shape out_shape{static_cast<int64_t>(batch.size())};
    for (const int64_t d : shape) out_shape.push_back(d);
    const Array out = Array::empty(out_shape, first.dtype(), first.device());
    const bool ragged =
        std::any_of(batch.begin(), batch.end(), [&](const Example& e) { return e.values[position].shape() != shape; });
    if (ragged) out.fill(*padding);
    for (size_t k = 0; k < batch.size(); ++k) copy_row(out, static_cast<int64_t>(k), batch[k].values[position]);
    return out;
}

}  // namespace

Example concat_examples(const std::vector<Example>& batch, std::optional<Device> device,
                        std::optional<Scalar> padding) {
    check_structure(batch);
    Example out;
    out.keys = batch[0].keys;
    out.values.reserve(batch[0].size());
    for (size_t position = 0; position < batch[0].size(); ++position) {
        Array stacked = stack_position(batch, position, padding);
        out.values.push_back(device ? stacked.to_device(*device) : std::move(stacked));
    }
    return out;
}

}  // namespace rensa::training
