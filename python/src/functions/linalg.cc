// rensa._core.functions, issue 23's linear algebra and array functions (det, inv, cholesky,
// cumprod, fft/ifft, sparse_matmul, diagonal, as_strided, im2col, scatter_add) with Chainer's
// argument names and defaults, and rensa._core.sparse: chainer.utils' CooMatrix, to_coo and
// get_order.
#include <optional>
#include <string>
#include <utility>

#include "core/error.h"
#include "functions/array.h"
#include "functions/math.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

// Chainer's _pair: an int or a pair of ints.
std::pair<int64_t, int64_t> to_pair(py::handle obj, const char* what) {
    std::vector<int64_t> values;
    for_each_int(obj, "im2col", what, [&](int64_t v) { values.push_back(v); });
    if (values.size() == 1 && is_index(obj)) return {values[0], values[0]};
    RENSA_CHECK(values.size() == 2, ValueError, "im2col: Expect: ", what,
                " to be an int or a pair of ints, Actual: ", values.size(), " values");
    return {values[0], values[1]};
}

// scatter_add's slices as Chainer's ScatterAdd reads them: a list of ints is one index array,
// another list a tuple of terms (boolean masks included, as get_item takes them).
std::vector<F::ItemIndex> to_items(py::handle slices) {
    py::object terms = py::reinterpret_borrow<py::object>(slices);
    if (py::isinstance<py::list>(slices)) {
        bool all_ints = true;
        for (py::handle t : slices) all_ints = all_ints && PyLong_Check(t.ptr()) && !PyBool_Check(t.ptr());
        terms = all_ints ? py::make_tuple(slices) : py::tuple(py::reinterpret_borrow<py::object>(slices));
    } else if (!py::isinstance<py::tuple>(slices)) {
        terms = py::make_tuple(slices);
    }
    std::vector<F::ItemIndex> items;
    for (py::handle term : terms) items.push_back(to_item(term));
    return items;
}

std::pair<Variable, Variable> to_complex_pair(py::handle x, const char* op) {
    const py::sequence pair = py::reinterpret_borrow<py::sequence>(x);
    RENSA_CHECK(py::isinstance<py::sequence>(x) && py::len(pair) == 2, ValueError, op,
                ": Expect: x to be a tuple (real, imag)");
    return {to_variable(pair[0]), to_variable(pair[1])};
}

py::object sparse_matmul(py::handle a, py::handle b, bool transa, bool transb) {
    const bool a_sparse = py::isinstance<F::CooMatrix>(a), b_sparse = py::isinstance<F::CooMatrix>(b);
    RENSA_CHECK(a_sparse != b_sparse, ValueError,
                "sparse_matmul: This combination of type of inputs is not supported: a: ",
                std::string(py::str(py::type::of(a))), ", b: ", std::string(py::str(py::type::of(b))));
    if (a_sparse) return py::cast(F::sparse_matmul(a.cast<const F::CooMatrix&>(), to_variable(b), transa, transb));
    return py::cast(F::sparse_matmul(to_variable(a), b.cast<const F::CooMatrix&>(), transa, transb));
}

void bind_math_linalg(py::module_& f) {
    f.def("det", &F::det, py::arg("a"),
          R"doc(Computes the determinant of a single square matrix.

float16 is computed in float32. A singular matrix gives exactly 0; its gradient raises
``ValueError``.

:param a: Matrix ``(n, n)`` of a floating-point dtype.
:returns: A 0-d variable.)doc");
    f.def("batch_det", &F::batch_det, py::arg("a"),
          R"doc(Computes the determinant of a batch of square matrices.

:param a: Matrices ``(B, n, n)`` of a floating-point dtype.
:returns: A variable ``(B,)``.)doc");
    f.def("inv", &F::inv, py::arg("a"),
          R"doc(Computes the inverse of a square matrix.

:param a: Matrix ``(n, n)`` of a floating-point dtype; a singular one raises ``ValueError``.
:returns: The inverse, of a's shape.)doc");
    f.def("batch_inv", &F::batch_inv, py::arg("a"),
          R"doc(Computes the inverse of a batch of square matrices.

:param a: Matrices ``(B, n, n)`` of a floating-point dtype; a singular one raises ``ValueError``.
:returns: The inverses, of a's shape.)doc");
    f.def("cholesky", &F::cholesky, py::arg("a"),
          R"doc(Cholesky decomposition: the lower-triangular ``L`` with ``a = L L^T``.

:param a: Symmetric positive definite matrix ``(n, n)``, read from its lower triangle as numpy does
    (``ValueError`` when not positive definite).
:returns: The lower-triangular factor.)doc");
    f.def("cumprod", &F::cumprod, py::arg("x"), py::arg("axis") = py::none(),
          R"doc(Cumulative (inclusive prefix) product of the elements along an axis.

The gradient is exact also where ``x`` has zeros, as in Chainer.

:param x: Input variable of a floating-point dtype.
:param axis: The axis; None multiplies over the flattened ``x`` (a 1-D result).
:returns: A variable of x's dtype.)doc");
    f.def(
        "fft",
        [](py::handle x) {
            const auto [real, imag] = F::fft(to_complex_pair(x, "fft"));
            return py::make_tuple(real, imag);
        },
        py::arg("x"),
        R"doc(Fast Fourier transform along the last axis.

:param x: A tuple ``(real, imag)`` of variables of one floating-point dtype and shape, ``ndim > 0``.
:returns: A tuple ``(real, imag)``.)doc");
    f.def(
        "ifft",
        [](py::handle x) {
            const auto [real, imag] = F::ifft(to_complex_pair(x, "ifft"));
            return py::make_tuple(real, imag);
        },
        py::arg("x"),
        R"doc(Inverse fast Fourier transform along the last axis (divided by the length).

:param x: A tuple ``(real, imag)`` of variables of one floating-point dtype and shape, ``ndim > 0``.
:returns: A tuple ``(real, imag)``.)doc");
    f.def("sparse_matmul", &sparse_matmul, py::arg("a"), py::arg("b"), py::arg("transa") = false,
          py::arg("transb") = false,
          R"doc(Matrix multiplication of a sparse matrix and a dense one: ``op(a) @ op(b)``.

Exactly one operand is a ``rensa.utils.CooMatrix`` (Chainer's ``chainer.utils.CooMatrix``); the
other is dense. Differentiable in the sparse data and the dense operand.

:param a: ``(m, k)`` or a batch ``(B, m, k)``: sparse or dense.
:param b: ``(k, n)`` or ``(B, k, n)``: the other kind.
:param transa: Transpose ``a`` first.
:param transb: Transpose ``b`` first.
:returns: A dense variable.)doc");
}

void bind_array_views(py::module_& f) {
    f.def("diagonal", &F::diagonal, py::arg("x"), py::arg("offset") = 0, py::arg("axis1") = 0, py::arg("axis2") = 1,
          R"doc(Takes a diagonal of a variable, as ``x.diagonal(offset, axis1, axis2)`` in numpy (a view).

:param x: Input variable of at least two dimensions.
:param offset: Offset of the diagonal from the main one.
:param axis1: The first axis of the 2-D sub-arrays.
:param axis2: The second axis; it must differ from ``axis1``.
:returns: The other axes in order, then the diagonal.)doc");
    f.def(
        "as_strided",
        [](const Variable& x, py::handle shape, py::handle strides, std::optional<int64_t> storage_offset) {
            return F::as_strided(x, to_shape(shape, "as_strided"), to_int64s(strides, "as_strided"), storage_offset);
        },
        py::arg("x"), py::arg("shape"), py::arg("strides"), py::arg("storage_offset") = py::none(),
        R"doc(Creates a view of ``x``'s memory with the given shape and strides, as Chainer's ``as_strided``.

The gradient sums ``gy`` over the view elements that read each position. ``ValueError`` when the
view reads outside the memory.

:param x: Input variable.
:param shape: The shape of the view.
:param strides: The strides of the view, in elements (not bytes).
:param storage_offset: The offset of the view's first element, in elements; None keeps x's.
:returns: The strided view.)doc");
    f.def(
        "im2col",
        [](const Variable& x, py::handle ksize, py::handle stride, py::handle pad, bool cover_all, py::handle dilate) {
            return F::im2col(x, to_pair(ksize, "ksize"), to_pair(stride, "stride"), to_pair(pad, "pad"), cover_all,
                             to_pair(dilate, "dilate"));
        },
        py::arg("x"), py::arg("ksize"), py::arg("stride") = 1, py::arg("pad") = 0, py::arg("cover_all") = false,
        py::arg("dilate") = 1,
        R"doc(Extracts patches from images: the ``(kh, kw)`` windows of ``x`` stacked along the channel axis.

:param x: Input images ``(N, C, H, W)`` of a floating-point dtype.
:param ksize: Size of the windows, an int or ``(kh, kw)``.
:param stride: Stride, an int or a pair.
:param pad: Zero padding width, an int or a pair.
:param cover_all: Add a last partial window, as convolution's ``cover_all``.
:param dilate: Dilation, an int or a pair.
:returns: A variable ``(N, C * kh * kw, out_h, out_w)`` ordered ``(c, i, j)``.)doc");
    f.def(
        "scatter_add",
        [](const Variable& a, py::handle slices, const Variable& b) { return F::scatter_add(a, to_items(slices), b); },
        py::arg("a"), py::arg("slices"), py::arg("b"),
        R"doc(Adds given values to specified elements of an array: a copy of ``a`` with ``b`` added at
``a[slices]``.

Repeated indices add up (``numpy.add.at``).

:param a: Input variable.
:param slices: An index as :func:`get_item` takes it; a list of ints is one index array.
:param b: Values of exactly ``a[slices]``'s shape and of a's dtype.
:returns: The updated copy.)doc");
}

Array array_of(py::handle obj) {
    return py::isinstance<Variable>(obj) ? obj.cast<const Variable&>().array() : to_array(obj);
}

void bind_sparse(py::module_& m) {
    py::module_ sp = m.def_submodule("sparse", "chainer.utils.sparse: CooMatrix, to_coo, get_order");
    py::class_<F::CooMatrix>(sp, "CooMatrix",
                             R"doc(A sparse matrix in coordinate format (chainer.utils.CooMatrix), the sparse operand of
``F.sparse_matmul``: an ``(m, n)`` matrix, or a batch of them, given by its nonzeros ``data[i]`` at
``(row[i], col[i])``.

Args:
    data: the nonzeros, ``(nnz,)`` or ``(B, ldnz)`` (a Variable keeps its graph).
    row: the row indices, an integer array of ``data``'s shape (entries < 0 are padding).
    col: the column indices, likewise.
    shape: the ``(m, n)`` shape of each matrix.
    order: ``'C'``, ``'F'`` or ``'other'``; derived from ``row`` and ``col`` when None.
    requires_grad (bool): whether ``data`` (an array) requires a gradient.

ValueError for inconsistent shapes or indices out of range.)doc")
        .def(py::init([](py::handle data, py::handle row, py::handle col, std::pair<int64_t, int64_t> shape,
                         std::optional<std::string> order, bool requires_grad) {
                 const Variable v = py::isinstance<Variable>(data) ? data.cast<const Variable&>()
                                                                   : Variable(to_array(data), requires_grad);
                 return F::CooMatrix(v, array_of(row), array_of(col), shape, std::move(order));
             }),
             py::arg("data"), py::arg("row"), py::arg("col"), py::arg("shape"), py::arg("order") = py::none(),
             py::arg("requires_grad") = false)
        .def_property_readonly("data", &F::CooMatrix::data, "The nonzeros, a Variable.")
        .def_property_readonly(
            "row", [](const F::CooMatrix& c) { return to_numpy(c.row()); }, "The row indices (-1: padding).")
        .def_property_readonly(
            "col", [](const F::CooMatrix& c) { return to_numpy(c.col()); }, "The column indices (-1: padding).")
        .def_property_readonly("shape", &F::CooMatrix::shape, "The ``(m, n)`` shape of each matrix.")
        .def_property_readonly("order", &F::CooMatrix::order,
                               "``'C'`` when the entries are sorted row-major, ``'F'`` when column-major, else "
                               "``'other'``.")
        .def(
            "to_dense", [](const F::CooMatrix& c) { return to_numpy(c.to_dense()); },
            "The dense ``(m, n)`` (or ``(B, m, n)``) array; entries at the same position add up.");
    sp.def(
        "to_coo",
        [](py::handle x, std::optional<int64_t> ldnz, bool requires_grad) {
            return F::to_coo(array_of(x), ldnz, requires_grad);
        },
        py::arg("x"), py::arg("ldnz") = py::none(), py::arg("requires_grad") = false,
        R"doc(The CooMatrix of a dense matrix (chainer.utils.to_coo): the nonzeros of a 2-D ``x`` (or of each
matrix of a 3-D ``x``) in row-major order.

Args:
    x: a 2-D or 3-D array (ValueError otherwise).
    ldnz (int): the number of entries per matrix; smaller than the largest nonzero count or None
        gives that count. Padding entries have ``row = col = -1`` and data 0.
    requires_grad (bool): whether the CooMatrix's data requires a gradient.)doc");
    sp.def(
        "get_order", [](py::handle row, py::handle col) { return F::get_order(array_of(row), array_of(col)); },
        py::arg("row"), py::arg("col"),
        "Chainer's get_order: ``'C'`` when the valid ``(row, col)`` pairs are sorted row-major, ``'F'`` when "
        "column-major, else ``'other'``; ValueError for a pair with only one index < 0.");
}

}  // namespace

void bind_linalg(py::module_& f, py::module_& m) {
    bind_sparse(m);
    bind_math_linalg(f);
    bind_array_views(f);
}

}  // namespace rensa::python::functions_bind
