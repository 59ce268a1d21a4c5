// rensa._core.functions, array family: shapes, joining and splitting, sequences, copies.
// Shapes and axes are Chainer's ints or tuples; multi-output functions return tuples.
#include <numeric>
#include <string>
#include <utility>

#include "core/error.h"
#include "functions/array.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

// A Python bool/int/float (or numpy scalar) -> Scalar, keeping its kind (numpy's rules).
Scalar to_scalar(py::handle obj, const char* op) {
    if (PyBool_Check(obj.ptr())) {
        return Scalar(obj.ptr() == Py_True);
    }
    if (PyIndex_Check(obj.ptr())) {
        return Scalar(obj.cast<int64_t>());
    }
    if (PyFloat_Check(obj.ptr()) || py::hasattr(obj, "__float__")) {
        return Scalar(obj.cast<double>());
    }
    throw py::type_error(std::string(op) + ": expected a number, got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
}

// The permutation that moves axis `source` to `destination` (numpy.moveaxis).
Axes moveaxis_permutation(int ndim, int source, int destination) {
    source = normalize_axis(source, ndim, "moveaxis");
    destination = normalize_axis(destination, ndim, "moveaxis");
    Axes order;
    for (int a = 0; a < ndim; ++a) {
        if (a != source) {
            order.push_back(a);
        }
    }
    Axes result;
    for (int i = 0, k = 0; i < ndim; ++i) {
        result.push_back(i == destination ? source : order[k++]);
    }
    return result;
}

void bind_shapes(py::module_& f) {
    f.def(
        "reshape", [](const Variable& x, py::handle shape) { return F::reshape(x, to_shape(shape, "reshape")); },
        py::arg("x"), py::arg("shape"),
        R"doc(Reshapes an input variable without copy.

:param x: Input variable (any dtype).
:param shape: The new shape, an int or a tuple of ints; one entry may be -1 (inferred).
:returns: A variable of the given shape over the same data.)doc");
    f.def(
        "broadcast_to",
        [](const Variable& x, py::handle shape) { return F::broadcast_to(x, to_shape(shape, "broadcast_to")); },
        py::arg("x"), py::arg("shape"),
        R"doc(Broadcasts a given variable to a shape, as ``numpy.broadcast_to``.

:param x: Input variable.
:param shape: The target shape, an int or a tuple of ints.
:returns: A variable of the given shape; ``x`` itself when it already has that shape. The gradient is
    summed back to x's shape.)doc");
    f.def(
        "sum_to", [](const Variable& x, py::handle shape) { return F::sum_to(x, to_shape(shape, "sum_to")); },
        py::arg("x"), py::arg("shape"),
        R"doc(Sums the elements of a variable down to a shape, the inverse of broadcasting.

:param x: Input variable.
:param shape: The target shape, one that broadcasts to x's shape.
:returns: A variable of the given shape; ``x`` itself when it already has that shape.)doc");
    f.def(
        "transpose",
        [](const Variable& x, py::handle axes) {
            const std::optional<Axes> order = to_axes(axes, "transpose");
            return order ? F::transpose(x, *order) : F::transpose(x);
        },
        py::arg("x"), py::arg("axes") = py::none(),
        R"doc(Permutes the dimensions of an input variable without copy.

:param x: Input variable.
:param axes: A permutation of ``range(x.ndim)``; None reverses the axes.
:returns: The permuted variable.)doc");
    f.def("swapaxes", &F::swapaxes, py::arg("x"), py::arg("axis1"), py::arg("axis2"),
          R"doc(Swaps two axes of a variable.

:param x: Input variable.
:param axis1: The first axis.
:param axis2: The second axis.
:returns: A variable with the two axes interchanged.)doc");
    f.def(
        "moveaxis",
        [](const Variable& x, int source, int destination) {
            return F::transpose(x, moveaxis_permutation(x.ndim(), source, destination));
        },
        py::arg("x"), py::arg("source"), py::arg("destination"),
        R"doc(Moves the source axis to the destination, as ``numpy.moveaxis`` (one axis each).

:param x: Input variable.
:param source: Original position of the axis to move.
:param destination: Destination position of the axis; the other axes keep their order.
:returns: The transposed variable.)doc");
    // numpy.rollaxis: axis moves to before `start`.
    f.def(
        "rollaxis",
        [](const Variable& x, int axis, int start) {
            const int ndim = x.ndim();
            const int a = normalize_axis(axis, ndim, "rollaxis");
            if (start < 0) {
                start += ndim;
            }
            RENSA_CHECK(start >= 0 && start <= ndim, DimensionError, "rollaxis: start=", start,
                        " is out of range for ndim=", ndim);
            const int destination = a < start ? start - 1 : start;
            return F::transpose(x, moveaxis_permutation(ndim, a, destination));
        },
        py::arg("x"), py::arg("axis"), py::arg("start") = 0,
        R"doc(Rolls an axis backwards to a given position, as ``numpy.rollaxis``.

:param x: Input variable.
:param axis: The axis to roll.
:param start: The axis is rolled until it lies before this position.
:returns: The transposed variable.)doc");
    f.def("expand_dims", &F::expand_dims, py::arg("x"), py::arg("axis"),
          R"doc(Expands the dimensions of a variable by inserting an axis of length 1.

:param x: Input variable.
:param axis: Position of the new axis, in ``[-x.ndim - 1, x.ndim]``.
:returns: A variable with one more dimension.)doc");
    f.def(
        "squeeze",
        [](const Variable& x, py::handle axis) {
            const std::optional<Axes> axes = to_axes(axis, "squeeze");
            return axes ? F::squeeze(x, *axes) : F::squeeze(x);
        },
        py::arg("x"), py::arg("axis") = py::none(),
        R"doc(Removes dimensions of size one from a variable.

:param x: Input variable.
:param axis: An int or a tuple of ints naming axes of length 1 to remove (``DimensionError`` for
    another); None removes every axis of length 1.
:returns: The squeezed variable.)doc");
    f.def("flatten", &F::flatten, py::arg("x"),
          R"doc(Flattens a variable into one dimension: ``x.reshape(x.size)``.

:param x: Input variable.
:returns: A one-dimensional variable.)doc");
    // Chainer's broadcast(*args): a tuple, or the one Variable when given one.
    f.def(
        "broadcast",
        [](const py::args& args) -> py::object {
            std::vector<Variable> ys = F::broadcast(to_variables(args));
            return ys.size() == 1 ? py::cast(std::move(ys[0])) : py::object(to_tuple(std::move(ys)));
        },
        R"doc(Broadcasts the given variables against each other, called as ``broadcast(x1, x2, ...)``.

:param args: Input variables (positional).
:returns: A tuple of the variables broadcast to their common shape, or the one variable when
    given one.)doc");
    f.def("flip", &F::flip, py::arg("x"), py::arg("axis"),
          R"doc(Flips an input variable along the given axis, as ``numpy.flip`` (a view).

:param x: Input variable.
:param axis: The axis to reverse.
:returns: The flipped variable.)doc");
    f.def(
        "fliplr", [](const Variable& a) { return F::flip(a, 1); }, py::arg("a"),
        R"doc(Flips an array in the left/right direction (along axis 1).

:param a: Input variable of at least two dimensions.
:returns: The flipped variable.)doc");
    f.def(
        "flipud", [](const Variable& a) { return F::flip(a, 0); }, py::arg("a"),
        R"doc(Flips an array in the up/down direction (along axis 0).

:param a: Input variable of at least one dimension.
:returns: The flipped variable.)doc");
}

void bind_joining(py::module_& f) {
    f.def(
        "concat", [](py::handle xs, int axis) { return F::concat(to_variables(xs), axis); }, py::arg("xs"),
        py::arg("axis") = 1,
        R"doc(Concatenates the given variables along an axis.

:param xs: A list or tuple of variables of one dtype, whose shapes agree except on ``axis``.
:param axis: The axis along which they are joined.
:returns: The joined variable.)doc");
    f.def(
        "stack", [](py::handle xs, int axis) { return F::stack(to_variables(xs), axis); }, py::arg("xs"),
        py::arg("axis") = 0,
        R"doc(Concatenates the variables along a new axis.

:param xs: A list or tuple of variables of one shape and dtype.
:param axis: The position of the new axis in the result.
:returns: A variable with one more dimension than the inputs.)doc");
    f.def(
        "hstack", [](py::handle xs) { return F::hstack(to_variables(xs)); }, py::arg("xs"),
        R"doc(Concatenates the variables horizontally, as ``numpy.hstack``.

1-D inputs are joined along axis 0, others along axis 1.

:param xs: A list or tuple of variables.
:returns: The joined variable.)doc");
    f.def(
        "vstack", [](py::handle xs) { return F::vstack(to_variables(xs)); }, py::arg("xs"),
        R"doc(Concatenates the variables vertically, as ``numpy.vstack``.

1-D inputs ``(N,)`` are treated as ``(1, N)``; the variables are joined along axis 0.

:param xs: A list or tuple of variables.
:returns: The joined variable.)doc");
    // numpy.dstack: 1-D (N,) -> (1, N, 1), 2-D (M, N) -> (M, N, 1), then joined on axis 2.
    f.def(
        "dstack",
        [](py::handle xs) {
            std::vector<Variable> vars = to_variables(xs);
            for (Variable& v : vars) {
                if (v.ndim() == 0) {
                    v = F::reshape(v, Shape{1, 1, 1});
                } else if (v.ndim() == 1) {
                    v = F::reshape(v, Shape{1, v.shape()[0], 1});
                } else if (v.ndim() == 2) {
                    v = F::expand_dims(v, 2);
                }
            }
            return F::concat(vars, 2);
        },
        py::arg("xs"),
        R"doc(Concatenates the variables along the third axis, as ``numpy.dstack``.

0-D inputs become ``(1, 1, 1)``, 1-D ``(N,)`` become ``(1, N, 1)`` and 2-D ``(M, N)`` become
``(M, N, 1)``; they are joined along axis 2.

:param xs: A list or tuple of variables.
:returns: The joined variable.)doc");
    f.def(
        "split_axis",
        [](const Variable& x, py::handle indices_or_sections, int axis, bool force_tuple) -> py::object {
            std::vector<Variable> ys = PyIndex_Check(indices_or_sections.ptr())
                                           ? F::split_axis_sections(x, indices_or_sections.cast<int64_t>(), axis)
                                           : F::split_axis(x, to_int64s(indices_or_sections, "split_axis"), axis);
            if (!force_tuple && ys.size() == 1) {
                return py::cast(std::move(ys[0]));
            }
            return to_tuple(std::move(ys));
        },
        py::arg("x"), py::arg("indices_or_sections"), py::arg("axis"), py::arg("force_tuple") = true,
        R"doc(Splits given variables along an axis.

:param x: The variable to split.
:param indices_or_sections: An int ``n`` splits into ``n`` equal pieces (``ValueError`` when the length
    is not divisible); a sorted sequence of ints gives the split points.
:param axis: The axis to split along.
:param force_tuple: Return a tuple even when there is one piece; with False a single piece is
    returned as a variable.
:returns: A tuple of variables, views of ``x``.)doc");
    f.def(
        "separate", [](const Variable& x, int axis) { return to_tuple(F::separate(x, axis)); }, py::arg("x"),
        py::arg("axis") = 0,
        R"doc(Separates an array along a given axis.

:param x: The variable to separate.
:param axis: The axis to separate along.
:returns: A tuple of ``x.shape[axis]`` variables, each without that axis.)doc");
}

void bind_sequences_and_copies(py::module_& f) {
    f.def(
        "pad_sequence",
        [](py::handle xs, std::optional<int64_t> length, py::handle padding) {
            return F::pad_sequence(to_variables(xs), length, to_scalar(padding, "pad_sequence"));
        },
        py::arg("xs"), py::arg("length") = py::none(), py::arg("padding") = 0,
        R"doc(Pads variable-length sequences into one array.

:param xs: A list of variables of shapes ``(L_i, ...)`` that agree past the first axis.
:param length: The length of the padded axis; None takes the longest ``L_i``. ``ValueError`` when a
    sequence is longer.
:param padding: The value of the padded elements (a Python number).
:returns: A variable of shape ``(len(xs), length, ...)`` holding ``xs[i]`` at ``[i, :L_i]``.)doc");
    f.def(
        "transpose_sequence", [](py::handle xs) { return to_tuple(F::transpose_sequence(to_variables(xs))); },
        py::arg("xs"),
        R"doc(Transposes a list of variable-length sequences into a list of time steps.

Step ``t`` stacks ``xs[i][t]`` of every sequence longer than ``t``. The function is its own
inverse.

:param xs: A list of variables ``(L_i, ...)`` sorted by decreasing length (``ValueError``
    otherwise).
:returns: A tuple of ``max(L_i)`` variables, step ``t`` of shape ``(B_t, ...)``.)doc");
    f.def(
        "cast", [](const Variable& x, py::handle typ) { return F::cast(x, to_dtype(typ)); }, py::arg("x"),
        py::arg("typ"),
        R"doc(Casts an input variable to the given type; the gradient is cast back.

:param x: Input variable.
:param typ: The target dtype (a numpy dtype or type, or its name).
:returns: A variable of that dtype; ``x`` itself when it already has it.)doc");
    f.def(
        "copy", [](const Variable& x, py::handle dst) { return F::copy(x, to_device(dst)); }, py::arg("x"),
        py::arg("dst"),
        R"doc(Copies the input variable onto the specified device; the gradient is copied back.

:param x: Input variable.
:param dst: The target device: a device object or specifier such as ``'@numpy'``, ``'native'`` or ``'@cupy:0'``.
:returns: A copy of ``x`` on that device.)doc");
    f.def(
        "tile", [](const Variable& x, py::handle reps) { return F::tile(x, to_int64s(reps, "tile")); }, py::arg("x"),
        py::arg("reps"),
        R"doc(Constructs a variable by repeating the input, as ``numpy.tile``.

:param x: Input variable.
:param reps: An int or a tuple of ints: the number of copies along each axis (the shorter of
    ``x.ndim`` and ``len(reps)`` is padded with leading ones).
:returns: The tiled variable.)doc");
    f.def(
        "repeat",
        [](const Variable& x, py::handle repeats, std::optional<int> axis) {
            if (PyIndex_Check(repeats.ptr())) {
                return F::repeat(x, repeats.cast<int64_t>(), axis);
            }
            return F::repeat(x, to_int64s(repeats, "repeat"), axis);
        },
        py::arg("x"), py::arg("repeats"), py::arg("axis") = py::none(),
        R"doc(Constructs a variable by repeating each element, as ``numpy.repeat``.

:param x: Input variable.
:param repeats: An int, or a sequence of ints with one count per element along ``axis``.
:param axis: The axis to repeat along; None repeats over the flattened ``x``.
:returns: The repeated variable.)doc");
    f.def(
        "resize_images",
        [](const Variable& x, py::handle output_shape, const std::string& mode, bool align_corners) {
            const std::vector<int64_t> hw = to_int64s(output_shape, "resize_images");
            RENSA_CHECK(hw.size() == 2, ValueError, "resize_images: output_shape must be (out_H, out_W), got ",
                        hw.size(), " values");
            return F::resize_images(x, {hw[0], hw[1]}, F::ResizeImagesOptions{mode, align_corners});
        },
        py::arg("x"), py::arg("output_shape"), py::kw_only(), py::arg("mode") = "bilinear",
        py::arg("align_corners") = true,
        R"doc(Resizes images to the given shape by interpolation, as Chainer computes the source positions.

:param x: Input images ``(N, C, H, W)`` of a floating-point dtype.
:param output_shape: The target ``(out_H, out_W)``.
:param mode: Keyword only: ``'bilinear'`` or ``'nearest'``.
:param align_corners: Keyword only: with bilinear interpolation, map the corner pixels onto the
    corner pixels.
:returns: A variable of shape ``(N, C, out_H, out_W)``.)doc");
}

// Chainer's depth2space / space2depth (B, C * r * r, H, W) <-> (B, C, H * r, W * r), in
// Chainer's element order, as reshapes and a transpose.
Variable depth2space(const Variable& x, int64_t r) {
    RENSA_CHECK(x.ndim() == 4 && r > 0 && x.shape()[1] % (r * r) == 0, DimensionError,
                "depth2space: x must be (B, C * r * r, H, W) with r=", r, ", got ", x.shape());
    const Shape& s = x.shape();
    const int64_t channels = s[1] / (r * r);
    const Variable y = F::transpose(F::reshape(x, Shape{s[0], r, r, channels, s[2], s[3]}), Axes{0, 3, 4, 1, 5, 2});
    return F::reshape(y, Shape{s[0], channels, s[2] * r, s[3] * r});
}

Variable space2depth(const Variable& x, int64_t r) {
    RENSA_CHECK(x.ndim() == 4 && r > 0 && x.shape()[2] % r == 0 && x.shape()[3] % r == 0, DimensionError,
                "space2depth: x must be (B, C, H, W) with H and W divisible by r=", r, ", got ", x.shape());
    const Shape& s = x.shape();
    const Variable y = F::transpose(F::reshape(x, Shape{s[0], s[1], s[2] / r, r, s[3] / r, r}), Axes{0, 3, 5, 1, 2, 4});
    return F::reshape(y, Shape{s[0], r * r * s[1], s[2] / r, s[3] / r});
}

// Chainer's permutate(x, indices, axis=0, inv=False): y = x.take(indices, axis), or its
// inverse (the argsort of indices) with inv.
Variable permutate(const Variable& x, py::handle indices, int axis, bool inv) {
    const py::module_ np = py::module_::import("numpy");
    // A Variable's indices are read through its array.
    py::object order = np.attr("asarray")(py::hasattr(indices, "array") ? indices.attr("array")
                                                                        : py::reinterpret_borrow<py::object>(indices));
    if (inv) {
        order = np.attr("argsort")(order);
    }
    std::vector<F::ItemIndex> items(static_cast<size_t>(normalize_axis(axis, x.ndim(), "permutate")), Slice{});
    items.emplace_back(to_array(order.attr("astype")("int64")));
    return F::get_item(x, items);
}

void bind_space_and_permutation(py::module_& f) {
    f.def("depth2space", &depth2space, py::arg("X"), py::arg("r"),
          R"doc(Converts channels into spatial blocks: ``(B, C * r * r, H, W)`` to ``(B, C, H * r, W * r)``.

The element order is Chainer's; :func:`space2depth` is the inverse.

:param X: Input variable of four dimensions whose channel count is divisible by ``r * r``.
:param r: The block size.
:returns: The rearranged variable.)doc");
    f.def("space2depth", &space2depth, py::arg("X"), py::arg("r"),
          R"doc(Converts spatial blocks into channels: ``(B, C, H, W)`` to ``(B, C * r * r, H / r, W / r)``.

The element order is Chainer's; :func:`depth2space` is the inverse.

:param X: Input variable of four dimensions with H and W divisible by ``r``.
:param r: The block size.
:returns: The rearranged variable.)doc");
    f.def("permutate", &permutate, py::arg("x"), py::arg("indices"), py::arg("axis") = 0, py::arg("inv") = false,
          R"doc(Permutates a given variable along an axis: ``y = x.take(indices, axis)``.

:param x: Input variable.
:param indices: A permutation of ``range(x.shape[axis])`` (an int array or a variable holding one).
:param axis: The axis to permute.
:param inv: Apply the inverse permutation instead.
:returns: The permuted variable.)doc");
}

}  // namespace

void bind_array(py::module_& f) {
    bind_shapes(f);
    bind_joining(f);
    bind_sequences_and_copies(f);
    bind_space_and_permutation(f);
}

}  // namespace rensa::python::functions_bind
