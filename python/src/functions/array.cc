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
        py::arg("x"), py::arg("shape"));
    f.def(
        "broadcast_to",
        [](const Variable& x, py::handle shape) { return F::broadcast_to(x, to_shape(shape, "broadcast_to")); },
        py::arg("x"), py::arg("shape"));
    f.def(
        "sum_to", [](const Variable& x, py::handle shape) { return F::sum_to(x, to_shape(shape, "sum_to")); },
        py::arg("x"), py::arg("shape"));
    f.def(
        "transpose",
        [](const Variable& x, py::handle axes) {
            const std::optional<Axes> order = to_axes(axes, "transpose");
            return order ? F::transpose(x, *order) : F::transpose(x);
        },
        py::arg("x"), py::arg("axes") = py::none());
    f.def("swapaxes", &F::swapaxes, py::arg("x"), py::arg("axis1"), py::arg("axis2"));
    f.def(
        "moveaxis",
        [](const Variable& x, int source, int destination) {
            return F::transpose(x, moveaxis_permutation(x.ndim(), source, destination));
        },
        py::arg("x"), py::arg("source"), py::arg("destination"));
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
        py::arg("x"), py::arg("axis"), py::arg("start") = 0);
    f.def("expand_dims", &F::expand_dims, py::arg("x"), py::arg("axis"));
    f.def(
        "squeeze",
        [](const Variable& x, py::handle axis) {
            const std::optional<Axes> axes = to_axes(axis, "squeeze");
            return axes ? F::squeeze(x, *axes) : F::squeeze(x);
        },
        py::arg("x"), py::arg("axis") = py::none());
    f.def("flatten", &F::flatten, py::arg("x"));
    // Chainer's broadcast(*args): a tuple, or the one Variable when given one.
    f.def("broadcast", [](const py::args& args) -> py::object {
        std::vector<Variable> ys = F::broadcast(to_variables(args));
        return ys.size() == 1 ? py::cast(std::move(ys[0])) : py::object(to_tuple(std::move(ys)));
    });
    f.def("flip", &F::flip, py::arg("x"), py::arg("axis"));
    f.def(
        "fliplr", [](const Variable& a) { return F::flip(a, 1); }, py::arg("a"));
    f.def(
        "flipud", [](const Variable& a) { return F::flip(a, 0); }, py::arg("a"));
}

void bind_joining(py::module_& f) {
    f.def(
        "concat", [](py::handle xs, int axis) { return F::concat(to_variables(xs), axis); }, py::arg("xs"),
        py::arg("axis") = 1);
    f.def(
        "stack", [](py::handle xs, int axis) { return F::stack(to_variables(xs), axis); }, py::arg("xs"),
        py::arg("axis") = 0);
    f.def(
        "hstack", [](py::handle xs) { return F::hstack(to_variables(xs)); }, py::arg("xs"));
    f.def(
        "vstack", [](py::handle xs) { return F::vstack(to_variables(xs)); }, py::arg("xs"));
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
        py::arg("xs"));
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
        py::arg("x"), py::arg("indices_or_sections"), py::arg("axis"), py::arg("force_tuple") = true);
    f.def(
        "separate", [](const Variable& x, int axis) { return to_tuple(F::separate(x, axis)); }, py::arg("x"),
        py::arg("axis") = 0);
}

void bind_sequences_and_copies(py::module_& f) {
    f.def(
        "pad_sequence",
        [](py::handle xs, std::optional<int64_t> length, py::handle padding) {
            return F::pad_sequence(to_variables(xs), length, to_scalar(padding, "pad_sequence"));
        },
        py::arg("xs"), py::arg("length") = py::none(), py::arg("padding") = 0);
    f.def(
        "transpose_sequence", [](py::handle xs) { return to_tuple(F::transpose_sequence(to_variables(xs))); },
        py::arg("xs"));
    f.def(
        "cast", [](const Variable& x, py::handle typ) { return F::cast(x, to_dtype(typ)); }, py::arg("x"),
        py::arg("typ"));
    f.def(
        "copy", [](const Variable& x, py::handle dst) { return F::copy(x, to_device(dst)); }, py::arg("x"),
        py::arg("dst"));
    f.def(
        "tile", [](const Variable& x, py::handle reps) { return F::tile(x, to_int64s(reps, "tile")); }, py::arg("x"),
        py::arg("reps"));
    f.def(
        "repeat",
        [](const Variable& x, py::handle repeats, std::optional<int> axis) {
            if (PyIndex_Check(repeats.ptr())) {
                return F::repeat(x, repeats.cast<int64_t>(), axis);
            }
            return F::repeat(x, to_int64s(repeats, "repeat"), axis);
        },
        py::arg("x"), py::arg("repeats"), py::arg("axis") = py::none());
    f.def(
        "resize_images",
        [](const Variable& x, py::handle output_shape, const std::string& mode, bool align_corners) {
            const std::vector<int64_t> hw = to_int64s(output_shape, "resize_images");
            RENSA_CHECK(hw.size() == 2, ValueError, "resize_images: output_shape must be (out_H, out_W), got ",
                        hw.size(), " values");
            return F::resize_images(x, {hw[0], hw[1]}, F::ResizeImagesOptions{mode, align_corners});
        },
        py::arg("x"), py::arg("output_shape"), py::kw_only(), py::arg("mode") = "bilinear",
        py::arg("align_corners") = true);
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
    f.def("depth2space", &depth2space, py::arg("X"), py::arg("r"));
    f.def("space2depth", &space2depth, py::arg("X"), py::arg("r"));
    f.def("permutate", &permutate, py::arg("x"), py::arg("indices"), py::arg("axis") = 0, py::arg("inv") = false);
}

}  // namespace

void bind_array(py::module_& f) {
    bind_shapes(f);
    bind_joining(f);
    bind_sequences_and_copies(f);
    bind_space_and_permutation(f);
}

}  // namespace rensa::python::functions_bind
