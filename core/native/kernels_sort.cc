// sort: stable ascending along an axis, NaN last (numpy's order). Each row (the axis
// swapped last) is gathered into a buffer with its NaNs split off to the end, the rest
// is stably sorted, and the row is written to values and/or indices. Rows run in
// parallel; float16/bfloat16 compare as float.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <memory>
#include <type_traits>

#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"

namespace rensa::native {
namespace {

// Rows this short are insertion-sorted: no temporary buffer, fewer branches.
inline constexpr int64_t kInsertionSortMax = 32;

template <class K>
struct Keyed {
    K key;
    int64_t index;
};

// Address of the first element of row `row` of x, whose last axis is the sorted one.
char* row_start(const Array& x, int64_t row) {
    char* p = static_cast<char*>(x.raw_data());
    for (int d = x.ndim() - 2; d >= 0; --d) {
        p += (row % x.shape()[d]) * x.strides()[d];
        row /= x.shape()[d];
    }
    return p;
}

template <class K>
bool is_nan(K v) {
    if constexpr (std::floating_point<K>) {
        return std::isnan(v);
    } else {
        return false;
    }
}

template <class E, class Less>
void stable_sort_run(E* first, E* last, Less less) {
    if (last - first > kInsertionSortMax) {
        std::stable_sort(first, last, less);
        return;
    }
    for (E* i = first + 1; i < last; ++i) {
        const E v = *i;
        E* j = i;
        for (; j > first && less(v, *(j - 1)); --j) *j = *(j - 1);
        *j = v;
    }
}

// Sorts every row of x into values and/or indices (undefined ones are skipped); with
// kIndexed the buffer carries each element's position, else only keys are moved.
template <class T, bool kIndexed>
void sort_rows(const Array& x, const Array& values, const Array& indices) {
    using K = ComputeT<T>;
    using E = std::conditional_t<kIndexed, Keyed<K>, K>;
    const auto key = [](const E& e) -> K {
        if constexpr (kIndexed) {
            return e.key;
        } else {
            return e;
        }
    };
    const int last = x.ndim() - 1;
    const int64_t n = x.shape()[last], rows = x.size() / n;
    const int64_t xs = x.strides()[last];
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t begin, int64_t end) {
        const auto storage = std::make_unique<E[]>(static_cast<size_t>(n));  // not std::vector<bool>
        E* const buf = storage.get();
        for (int64_t row = begin; row < end; ++row) {
            const char* src = row_start(x, row);
            int64_t front = 0, back = n;  // non-NaN fill from the front, NaN from the back
            for (int64_t i = 0; i < n; ++i) {
                const K v = static_cast<K>(*reinterpret_cast<const T*>(src + i * xs));
                E e;
                if constexpr (kIndexed) {
                    e = {v, i};
                } else {
                    e = v;
                }
                buf[is_nan(v) ? --back : front++] = e;
            }
            std::reverse(buf + back, buf + n);  // NaNs back in their original order
            stable_sort_run(buf, buf + front, [&](const E& l, const E& r) { return key(l) < key(r); });
            if (values.defined()) {
                char* dst = row_start(values, row);
                const int64_t vs = values.strides()[last];
                for (int64_t i = 0; i < n; ++i) {
                    *reinterpret_cast<T*>(dst + i * vs) = cast_value<T>(key(buf[i]));
                }
            }
            if constexpr (kIndexed) {
                char* dst = row_start(indices, row);
                const int64_t is = indices.strides()[last];
                for (int64_t i = 0; i < n; ++i) {
                    *reinterpret_cast<int64_t*>(dst + i * is) = buf[i].index;
                }
            }
        }
    });
}

}  // namespace

void NativeKernels::sort(const SortArgs& args) {
    if (args.x.size() == 0) return;
    // Swapping the axis last in every operand (views) makes each row one strided run.
    const int last = args.x.ndim() - 1;
    const auto axis_last = [&](const Array& a) { return a.defined() ? a.swapaxes(args.axis, last) : a; };
    const Array x = axis_last(args.x), values = axis_last(args.values), indices = axis_last(args.indices);
    visit_dtype(x.dtype(), [&]<typename T>() {
        if (indices.defined()) {
            sort_rows<T, true>(x, values, indices);
        } else if (values.defined()) {
            sort_rows<T, false>(x, values, indices);
        }
    });
}

}  // namespace rensa::native
