// rensa.functions: max / average pooling (1-d to 3-d), unpooling_2d, upsampling_2d and
// spatial_pyramid_pooling_2d. stride=None means ksize, as in Chainer; return_indices=True
// also returns the argmax indexes (a numpy array) that upsampling_2d takes.
#include <string>
#include <utility>

#include "core/error.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

F::MaxPoolingOptions max_options(const std::optional<Ints>& stride, const Ints& pad, bool cover_all) {
    return {.stride = to_pooling_size(stride), .pad = to_pooling_size(pad), .cover_all = cover_all};
}

// The indexes exist for 2-d pooling only (the C++ library keeps none for other ranks).
py::object max_pooling(const char* name, int spatial, const Variable& x, const Ints& ksize,
                       const std::optional<Ints>& stride, const Ints& pad, bool cover_all, bool return_indices) {
    const F::MaxPoolingOptions options = max_options(stride, pad, cover_all);
    if (spatial > 0) {
        RENSA_CHECK(x.ndim() == spatial + 2, DimensionError, name, ": x.ndim=", x.ndim(), " but ", spatial + 2,
                    " is expected (n, c, ", spatial, " spatial dims)");
    }
    if (return_indices) {
        RENSA_CHECK(x.ndim() == 4, NotImplementedError, name,
                    ": return_indices=True is supported for 2 spatial dims only, x.ndim=", x.ndim());
        std::pair<Variable, Array> result;
        {
            py::gil_scoped_release release;
            result = F::max_pooling_2d_with_indexes(x, to_pooling_size(ksize), options);
        }
        return py::make_tuple(result.first, to_numpy(result.second));
    }
    Variable y;
    {
        py::gil_scoped_release release;
        y = spatial == 2 ? F::max_pooling_2d(x, to_pooling_size(ksize), options)
                         : F::max_pooling_nd(x, to_pooling_size(ksize), options);
    }
    return py::cast(std::move(y));
}

template <int kSpatial>
Variable average_pooling(const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
                         std::optional<double> pad_value) {
    const F::AveragePoolingOptions options{
        .stride = to_pooling_size(stride), .pad = to_pooling_size(pad), .pad_value = pad_value};
    if (kSpatial == 2) return F::average_pooling_2d(x, to_pooling_size(ksize), options);
    if (kSpatial > 0) {
        RENSA_CHECK(x.ndim() == kSpatial + 2, DimensionError, "average_pooling_", kSpatial, "d: x.ndim=", x.ndim(),
                    " but ", kSpatial + 2, " is expected (n, c, ", kSpatial, " spatial dims)");
    }
    return F::average_pooling_nd(x, to_pooling_size(ksize), options);
}

void bind_max_pooling(py::module_& f) {
    struct Entry {
        const char* name;
        int spatial;  // 0: any (the _nd function)
    };
    for (const Entry entry : {Entry{"max_pooling_2d", 2}, Entry{"max_pooling_nd", 0}, Entry{"max_pooling_1d", 1},
                              Entry{"max_pooling_3d", 3}}) {
        f.def(
            entry.name,
            [entry](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
                    bool cover_all, bool return_indices) {
                return max_pooling(entry.name, entry.spatial, x, ksize, stride, pad, cover_all, return_indices);
            },
            py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
            py::arg("cover_all") = true, py::arg("return_indices") = false);
    }
}

}  // namespace

F::UnpoolingOptions unpooling_options(const std::optional<Ints>& stride, const Ints& pad,
                                      const std::optional<Ints>& outsize, bool cover_all) {
    return {.stride = to_pooling_size(stride),
            .pad = to_pooling_size(pad),
            .outsize = to_pooling_size(outsize),
            .cover_all = cover_all};
}

void bind_pooling(py::module_& f) {
    bind_max_pooling(f);
    f.def(
        "spatial_pyramid_pooling_2d",
        [](const Variable& x, int64_t pyramid_height, const std::optional<std::string>& pooling) {
            // Chainer's default pooling=None is refused as Chainer refuses it: 'max' must be named.
            RENSA_CHECK(pooling.has_value(), ValueError,
                        "spatial_pyramid_pooling_2d: Expect: pooling in ('max', 'average'), Actual: None");
            return F::spatial_pyramid_pooling_2d(x, pyramid_height, *pooling);
        },
        py::arg("x"), py::arg("pyramid_height"), py::arg("pooling") = py::none(), Release(),
        "Chainer's spatial pyramid pooling: level l pools x into 2**l x 2**l bins.\n\n"
        "Returns (n, c * sum_l 4**l, 1, 1), the levels concatenated along axis 1.");
    // Chainer's average_pooling_2d has no pad_value (its padding counts as zeros); the _nd ones do.
    f.def(
        "average_pooling_2d",
        [](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad) {
            return average_pooling<2>(x, ksize, stride, pad, 0.0);
        },
        py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0, Release());
    f.def("average_pooling_nd", &average_pooling<0>, py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(),
          py::arg("pad") = 0, py::arg("pad_value") = 0.0, Release());
    f.def("average_pooling_1d", &average_pooling<1>, py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(),
          py::arg("pad") = 0, py::arg("pad_value") = 0.0, Release());
    f.def("average_pooling_3d", &average_pooling<3>, py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(),
          py::arg("pad") = 0, py::arg("pad_value") = 0.0, Release());
    f.def(
        "unpooling_2d",
        [](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
           const std::optional<Ints>& outsize, bool cover_all) {
            return F::unpooling_2d(x, to_pooling_size(ksize), unpooling_options(stride, pad, outsize, cover_all));
        },
        py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
        py::arg("outsize") = py::none(), py::arg("cover_all") = true, Release());
    f.def(
        "upsampling_2d",
        [](const Variable& x, const py::object& indexes, const Ints& ksize, const std::optional<Ints>& stride,
           const Ints& pad, const std::optional<Ints>& outsize, bool cover_all) {
            const Array index_array = to_array_or_undefined(indexes);
            py::gil_scoped_release release;
            return F::upsampling_2d(x, index_array, to_pooling_size(ksize),
                                    unpooling_options(stride, pad, outsize, cover_all));
        },
        py::arg("x"), py::arg("indexes"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
        py::arg("outsize") = py::none(), py::arg("cover_all") = true);
}

}  // namespace rensa::python::functions_bind
