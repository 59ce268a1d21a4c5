#pragma once
// Internal to the bind files of rensa._core.functions (python/src/functions/, one file per
// family of functions/): the per-family binders, in the order bind_functions calls them.
// Functions are bound straight to the C++ functions (no Python frame per call) with Chainer's
// positional order, keyword names and defaults; the argument conversions they share are in
// python/src/convert/.
#include "functions/functions.h"
#include "python/src/bind.h"
#include "python/src/convert/axes.h"
#include "python/src/convert/int_or_tuple.h"
#include "python/src/convert/ints.h"
#include "python/src/convert/shape.h"
#include "python/src/convert/tuple.h"
#include "python/src/convert/variables.h"

namespace rensa::python::functions_bind {

void bind_activation(py::module_& f);                      // activation.cc
void bind_noise(py::module_& f);                           // noise.cc
void bind_array(py::module_& f);                           // array.cc: shapes, joining, sequences, copies
void bind_array_indexing(py::module_& f, py::module_& m);  // array_index.cc: get_item, where, ...
void bind_math(py::module_& f);                            // math.cc: reductions, elementwise functions
void bind_math_products(py::module_& f);                   // math.cc: matmul, tensordot, einsum
void bind_connection(py::module_& f);                      // connection.cc
void bind_recurrent(py::module_& f);                       // connection.cc: n_step_lstm, n_step_gru, ...
void bind_pooling(py::module_& f);                         // pooling.cc
void bind_roi(py::module_& f);                             // roi.cc: roi_pooling_2d, roi_*_align_2d, ...
void bind_normalization(py::module_& f);                   // normalization.cc
void bind_loss(py::module_& f);                            // loss.cc
void bind_evaluation(py::module_& f);                      // evaluation.cc
// linalg.cc (issue 23): det, inv, cholesky, cumprod, fft, sparse_matmul, diagonal,
// as_strided, im2col, scatter_add; submodule "sparse" (CooMatrix, to_coo, get_order).
void bind_linalg(py::module_& f, py::module_& m);

// One term of a numpy index (int, slice, None, Ellipsis, array-like) as get_item's
// ItemIndex (array_index.cc); a boolean array stays a bool Array.
F::ItemIndex to_item(py::handle term);
void bind_spatial(py::module_& f);   // spatial.cc: spatial transformer, shift, ... (issue 23)
void bind_normloss(py::module_& f);  // normloss.cc: issue 23 normalizations and losses
void bind_pad(py::module_& f);       // pad.cc: pad(x, pad_width, mode, **keywords)
void bind_act(py::module_& f);       // act.cc: issue 23's special functions, rrelu, cells, forget

// Chainer's unpooling options from Python (pooling.cc; unpooling_2d and unpooling_nd share them).
F::UnpoolingOptions unpooling_options(const std::optional<Ints>& stride, const Ints& pad,
                                      const std::optional<Ints>& outsize, bool cover_all);

}  // namespace rensa::python::functions_bind
