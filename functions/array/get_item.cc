// get_item: numpy indexing with integers, slices, NewAxis, Ellipsis and at most one integer
// array. The basic terms make a view (BasicIndex); the array gathers along its axis
// (TakeAlong). See Note [Advanced index placement]. scatter_add is get_item's adjoint
// added to a: the same plan run backwards.

#include <algorithm>
#include <sstream>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/array/detail.h"

namespace rensa::functions {
namespace {

// Note [Advanced index placement]: with an integer array in the index, numpy treats the
// integer terms as advanced indices too. When the advanced terms sit next to each other
// the gathered dimensions replace the array's term; when a slice, NewAxis or Ellipsis
// separates them they go first. x (2, 3, 4): x[0, :, a] has shape a.shape + (3,).
struct Plan {
    std::vector<Index> basic;      // the index with the array replaced by a full slice
    std::optional<Array> indices;  // the array term, int64 in range
    int axis = 0;                  // the array's axis in the basic view
    bool to_front = false;         // see the Note
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

// The array term as int64 in [0, size), on x's device; IndexError names the bad entry.
Array normalize_indices(const Array& indices, int term, int axis, int64_t size, Device device) {
    RENSA_CHECK(is_integral(indices.dtype()), DtypeError, "get_item: Expect: the array at index position ", term,
                " to have an integer dtype (boolean masks are not supported), Actual: ", dtype_name(indices.dtype()));
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

int count_consumed(const std::vector<ItemIndex>& slices) {
    int consumed = 0, ellipses = 0, arrays = 0;
    for (const ItemIndex& s : slices) {
        consumed +=
            std::holds_alternative<int64_t>(s) || std::holds_alternative<Slice>(s) || std::holds_alternative<Array>(s);
        ellipses += std::holds_alternative<Ellipsis>(s);
        arrays += std::holds_alternative<Array>(s);
    }
    RENSA_CHECK(ellipses <= 1, IndexError, "get_item: an index can only have a single ellipsis ('...')");
    RENSA_CHECK(arrays <= 1, NotImplementedError, "get_item: at most one integer array is supported in an index, got ",
                arrays);
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
            plan.indices = normalize_indices(*a, static_cast<int>(term), dim, shape[dim], device);
            plan.axis = out_dim;
            plan.basic.emplace_back(Slice{});
            ++dim, ++out_dim;
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
    plan.to_front = plan.indices && separated(slices);
    return plan;
}

// The gathered dimensions [axis, axis + k) moved to the front.
Variable move_to_front(const Variable& y, int axis, int k) {
    Axes axes;
    for (int d = axis; d < axis + k; ++d) axes.push_back(d);
    for (int d = 0; d < y.ndim(); ++d) {
        if (d < axis || d >= axis + k) axes.push_back(d);
    }
    return transpose(y, axes);
}

// The inverse of move_to_front.
Variable move_back(const Variable& y, int axis, int k) {
    Axes axes;
    for (int d = k; d < k + axis; ++d) axes.push_back(d);
    for (int d = 0; d < k; ++d) axes.push_back(d);
    for (int d = k + axis; d < y.ndim(); ++d) axes.push_back(d);
    return transpose(y, axes);
}

// x[slices].shape for the plan's view shape.
Shape indexed_shape(const Plan& plan, const Shape& view) {
    if (!plan.indices) return view;
    const Shape& index_shape = plan.indices->shape();
    Shape shape;
    const auto push_index_shape = [&] {
        for (int d = 0; d < index_shape.size(); ++d) shape.push_back(index_shape[d]);
    };
    if (plan.to_front) push_index_shape();
    for (int d = 0; d < view.size(); ++d) {
        if (d != plan.axis) {
            shape.push_back(view[d]);
        } else if (!plan.to_front) {
            push_index_shape();
        }
    }
    return shape;
}

}  // namespace

Variable get_item(const Variable& x, const std::vector<ItemIndex>& slices) {
    expect_defined(x, "get_item", "x");
    const Plan plan = make_plan(x.shape(), slices, x.device());
    Variable y = array_detail::basic_index(x, plan.basic);
    if (!plan.indices) return y;
    y = array_detail::take_along(y, *plan.indices, plan.axis);
    return plan.to_front ? move_to_front(y, plan.axis, plan.indices->ndim()) : y;
}

Variable scatter_add(const Variable& a, const std::vector<ItemIndex>& slices, const Variable& b) {
    expect_defined(a, "scatter_add", "a");
    expect_same_dtype(a, b, "scatter_add", "a", "b");
    const Plan plan = make_plan(a.shape(), slices, a.device());
    const Shape view = a.array().index(plan.basic).shape();
    const Shape expected = indexed_shape(plan, view);
    RENSA_CHECK(b.shape() == expected, ValueError,
                "scatter_add: Expect: b.shape == a[slices].shape (b is not broadcast, as in Chainer), Actual: b.shape ",
                b.shape(), ", a[slices].shape ", expected);
    Variable t = b;
    if (plan.indices) {
        if (plan.to_front) t = move_back(t, plan.axis, plan.indices->ndim());
        t = array_detail::scatter_along(t, *plan.indices, plan.axis, view);
    }
    return a + array_detail::basic_index_grad(t, plan.basic, a.shape());
}

Variable get_item(const Variable& x, int64_t index) { return get_item(x, std::vector<ItemIndex>{index}); }

Variable get_item(const Variable& x, const Array& indices) { return get_item(x, std::vector<ItemIndex>{indices}); }

}  // namespace rensa::functions
