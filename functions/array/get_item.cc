// get_item: numpy indexing with integers, slices, NewAxis, Ellipsis, integer arrays and
// boolean masks, any number of each. The basic terms make a view (BasicIndex); the arrays
// gather (TakeAlong): one array along its axis, several through the flat index of their
// axes merged into one. See Note [Advanced index placement];
// device index arrays are not read back (Note [Device index wrap] in core/ops/indexing.cc).

#include <algorithm>
#include <sstream>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/grad.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

// Note [Advanced index placement]: with an integer array in the index, numpy treats the
// integer terms as advanced indices too. When the advanced terms sit next to each other
// the gathered dimensions replace the array's term; when a slice, NewAxis or Ellipsis
// separates them they go first. x (2, 3, 4): x[0, :, a] has shape a.shape + (3,).
// Several arrays broadcast together and pick one element each from the axes they index, as
// numpy does; a boolean mask counts as the integer arrays of its nonzero() (one per axis).
struct Plan {
    std::vector<Index> basic;   // the index with each array replaced by a full slice
    std::vector<Array> arrays;  // the array terms, int64 in range, on x's device
    std::vector<int> axes;      // their axes in the basic view (increasing)
    bool to_front = false;      // see the Note
};

std::string multi_index(int64_t flat, const Shape& shape) {
    std::vector<int64_t> idx(static_cast<size_t>(shape.size()));
    for (int d = shape.size() - 1; d >= 0; --d) {
        idx[static_cast<size_t>(d)] = flat % shape[d];
        flat /= shape[d];
    }
    std::ostringstream os;
    os << "(";
    for (size_t d = 0; d < idx.size(); ++d) os << (d ? ", " : "") << idx[d];
    os << (idx.size() == 1 ? ",)" : ")");
    return os.str();
}

// An index array on the host is checked there (IndexError names the bad entry, as numpy);
// one on a device wraps there instead of being copied back (See Note [Device index wrap]).
// The array term as int64 in [0, size), on x's device; IndexError names the bad entry.
Array normalize_indices(const Array& indices, int term, int axis, int64_t size, Device device) {
    RENSA_CHECK(is_integral(indices.dtype()), DtypeError, "get_item: Expect: the array at index position ", term,
                " to have an integer or bool dtype, Actual: ", dtype_name(indices.dtype()));
    if (indices.device().kind != DeviceKind::kNative) {
        RENSA_CHECK(size > 0 || indices.size() == 0, IndexError, "get_item: index into axis ", axis, " of size 0");
        return ops::mod(indices.astype(Dtype::kInt64, false), size > 0 ? size : 1).to_device(device);
    }
    std::vector<int64_t> values = indices.to_vector<int64_t>();
    for (size_t k = 0; k < values.size(); ++k) {
        int64_t& v = values[k];
        RENSA_CHECK(v >= -size && v < size, IndexError, "get_item: index ", v, " at position ",
                    multi_index(static_cast<int64_t>(k), indices.shape()), " of the array at index position ", term,
                    " is out of bounds for axis ", axis, " with size ", size);
        if (v < 0) v += size;
    }
    return Array::from_vector(values, indices.shape(), device);
}

// The integer arrays of a boolean mask's true elements, one per mask axis (numpy.nonzero).
// Their length depends on the mask's values, so the mask is read on the host (CuPy
// synchronizes here too).
std::vector<Array> mask_indices(const Array& mask, const Shape& shape, int dim, int term) {
    RENSA_CHECK(mask.ndim() > 0, NotImplementedError, "get_item: a 0-d boolean index (x[True]) is not supported");
    RENSA_CHECK(dim + mask.ndim() <= shape.size(), IndexError, "get_item: too many indices for array: the boolean ",
                "index at position ", term, " of shape ", mask.shape(), " goes past x of shape ", shape);
    for (int a = 0; a < mask.ndim(); ++a) {
        RENSA_CHECK(mask.shape()[a] == shape[dim + a], IndexError,
                    "get_item: boolean index did not match indexed array along dimension ", dim + a, "; dimension is ",
                    shape[dim + a], " but corresponding boolean dimension is ", mask.shape()[a]);
    }
    const std::vector<uint8_t> flags = mask.to_device(Device::native()).astype(Dtype::kUInt8).to_vector<uint8_t>();
    std::vector<std::vector<int64_t>> coords(static_cast<size_t>(mask.ndim()));
    for (int64_t flat = 0; flat < static_cast<int64_t>(flags.size()); ++flat) {
        if (!flags[static_cast<size_t>(flat)]) continue;
        int64_t rem = flat;
        for (int a = mask.ndim() - 1; a >= 0; --a) {
            coords[static_cast<size_t>(a)].push_back(rem % mask.shape()[a]);
            rem /= mask.shape()[a];
        }
    }
    std::vector<Array> arrays;
    for (auto& c : coords) {
        const auto n = static_cast<int64_t>(c.size());
        arrays.push_back(Array::from_vector(c, Shape{n}, Device::native()));
    }
    return arrays;
}

// Each term's count of x's axes: 1 for an integer, a slice or an integer array, mask.ndim
// for a boolean mask.
int consumed_by(const ItemIndex& s) {
    if (const auto* a = std::get_if<Array>(&s)) return a->dtype() == Dtype::kBool ? std::max(a->ndim(), 1) : 1;
    return std::holds_alternative<int64_t>(s) || std::holds_alternative<Slice>(s) ? 1 : 0;
}

int count_consumed(const std::vector<ItemIndex>& slices) {
    int consumed = 0, ellipses = 0;
    for (const ItemIndex& s : slices) {
        consumed += consumed_by(s);
        ellipses += std::holds_alternative<Ellipsis>(s);
    }
    RENSA_CHECK(ellipses <= 1, IndexError, "get_item: an index can only have a single ellipsis ('...')");
    return consumed;
}

// Whether the advanced terms (ints and the array) are separated by a basic term.
bool separated(const std::vector<ItemIndex>& slices) {
    std::vector<size_t> advanced;
    for (size_t i = 0; i < slices.size(); ++i) {
        if (std::holds_alternative<int64_t>(slices[i]) || std::holds_alternative<Array>(slices[i])) {
            advanced.push_back(i);
        }
    }
    return !advanced.empty() && advanced.back() - advanced.front() + 1 != advanced.size();
}

Plan make_plan(const Shape& shape, const std::vector<ItemIndex>& slices, Device device) {
    const int ndim = shape.size();
    const int consumed = count_consumed(slices);
    RENSA_CHECK(consumed <= ndim, IndexError, "get_item: too many indices for array: array is ", ndim,
                "-dimensional, but ", consumed, " were indexed");
    Plan plan;
    int dim = 0, out_dim = 0;
    for (size_t term = 0; term < slices.size(); ++term) {
        const ItemIndex& s = slices[term];
        if (const auto* i = std::get_if<int64_t>(&s)) {
            RENSA_CHECK(*i >= -shape[dim] && *i < shape[dim], IndexError, "get_item: index ", *i, " at position ", term,
                        " is out of bounds for axis ", dim, " with size ", shape[dim], " (x.shape ", shape, ")");
            plan.basic.emplace_back(*i);
            ++dim;
        } else if (const auto* a = std::get_if<Array>(&s)) {
            const std::vector<Array> arrays = a->dtype() == Dtype::kBool
                                                  ? mask_indices(*a, shape, dim, static_cast<int>(term))
                                                  : std::vector<Array>{*a};
            for (const Array& indices : arrays) {
                plan.arrays.push_back(normalize_indices(indices, static_cast<int>(term), dim, shape[dim], device));
                plan.axes.push_back(out_dim);
                plan.basic.emplace_back(Slice{});
                ++dim, ++out_dim;
            }
        } else if (const auto* sl = std::get_if<Slice>(&s)) {
            RENSA_CHECK(sl->step != 0, ValueError, "get_item: slice step cannot be zero (index position ", term, ")");
            plan.basic.emplace_back(*sl);
            ++dim, ++out_dim;
        } else if (std::holds_alternative<NewAxis>(s)) {
            plan.basic.emplace_back(NewAxis{});
            ++out_dim;
        } else {
            plan.basic.emplace_back(Ellipsis{});
            dim += ndim - consumed, out_dim += ndim - consumed;
        }
    }
    plan.to_front = !plan.arrays.empty() && separated(slices);
    return plan;
}

// The dimensions [from, from + k) of y moved to start at `to`.
Variable move_block(const Variable& y, int from, int k, int to) {
    Axes rest, axes;
    for (int d = 0; d < y.ndim(); ++d) {
        if (d < from || d >= from + k) rest.push_back(d);
    }
    for (int d = 0; d < to; ++d) axes.push_back(rest[static_cast<size_t>(d)]);
    for (int d = from; d < from + k; ++d) axes.push_back(d);
    for (int d = to; d < static_cast<int>(rest.size()); ++d) axes.push_back(rest[static_cast<size_t>(d)]);
    bool identity = true;
    for (int d = 0; d < y.ndim(); ++d) identity = identity && axes[d] == d;
    return identity ? y : transpose(y, axes);
}

// Several index arrays: their axes moved to the front and merged into one, gathered at the
// flat index sum_j arrays[j] * stride_j (the arrays broadcast together), so the result has
// the broadcast shape in front.
Variable gather_merged(const Variable& y, const Plan& plan, const Shape& broadcast) {
    Axes order(plan.axes.begin(), plan.axes.end());
    for (int d = 0; d < y.ndim(); ++d) {
        if (std::find(plan.axes.begin(), plan.axes.end(), d) == plan.axes.end()) order.push_back(d);
    }
    Shape merged{1};
    for (const int a : plan.axes) merged[0] *= y.shape()[a];
    for (int d = static_cast<int>(plan.axes.size()); d < order.size(); ++d) merged.push_back(y.shape()[order[d]]);
    const Variable front = reshape(transpose(y, order), merged);
    Array flat = ops::zeros(broadcast, Dtype::kInt64, y.device());
    for (size_t j = 0; j < plan.arrays.size(); ++j) {
        flat = ops::add(ops::multiply(flat, y.shape()[plan.axes[j]]), plan.arrays[j]);
    }
    return array_detail::take_along(front, flat, 0);
}

}  // namespace

Variable get_item(const Variable& x, const std::vector<ItemIndex>& slices) {
    expect_defined(x, "get_item", "x");
    const Plan plan = make_plan(x.shape(), slices, x.device());
    Variable y = array_detail::basic_index(x, plan.basic);
    if (plan.arrays.empty()) return y;
    if (plan.arrays.size() == 1) {
        y = array_detail::take_along(y, plan.arrays[0], plan.axes[0]);
        return plan.to_front ? move_block(y, plan.axes[0], plan.arrays[0].ndim(), 0) : y;
    }
    Shape broadcast = plan.arrays[0].shape();
    for (const Array& a : plan.arrays) broadcast = broadcast_shapes(broadcast, a.shape(), "get_item");
    y = gather_merged(y, plan, broadcast);
    // Adjacent advanced terms put the gathered dimensions where the first of them was.
    return plan.to_front ? y : move_block(y, 0, static_cast<int>(broadcast.size()), plan.axes[0]);
}

// Note [scatter_add as get_item's adjoint]: a[slices] is linear in a, and scatter_add adds b
// through its adjoint, which is get_item's gradient with respect to x for the output grad b.
// So scatter_add takes that gradient from autograd (recorded, so it is differentiable in b
// and a) instead of a second indexing plan: whatever get_item indexes (several arrays,
// boolean masks), scatter_add adds into, with numpy's add.at accumulation of repeats.
Variable scatter_add(const Variable& a, const std::vector<ItemIndex>& slices, const Variable& b) {
    expect_defined(a, "scatter_add", "a");
    expect_defined(b, "scatter_add", "b");
    expect_same_dtype(a, b, "scatter_add", "a", "b");
    const ForceBackpropMode force;
    const Variable z(ops::zeros(a.shape(), a.dtype(), a.device()), true);
    const Variable view = get_item(z, slices);
    RENSA_CHECK(b.shape() == view.shape(), ValueError,
                "scatter_add: Expect: b.shape == a[slices].shape (b is not broadcast, as in Chainer), Actual: b.shape ",
                b.shape(), ", a[slices].shape ", view.shape());
    GradOptions options;
    options.enable_double_backprop = true;
    const Variable added = grad({view}, {z}, {b}, options)[0];
    return added.defined() ? a + added : a + Variable(ops::zeros(a.shape(), a.dtype(), a.device()));
}

Variable get_item(const Variable& x, int64_t index) { return get_item(x, std::vector<ItemIndex>{index}); }

Variable get_item(const Variable& x, const Array& indices) { return get_item(x, std::vector<ItemIndex>{indices}); }

}  // namespace rensa::functions
