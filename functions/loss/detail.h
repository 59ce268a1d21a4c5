#pragma once
// Checks shared by the loss functions of functions/loss/ (internal); the input checks are
// autograd/check.h's.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "autograd/variable.h"
#include "core/error.h"

namespace rensa::functions {
struct SoftmaxCrossEntropyOptions;
}  // namespace rensa::functions

namespace rensa::functions::detail {

// The CTC loss per sequence (B,) and its gradient by the scores (T, B, V), float64 on the
// scores' device (ctc_recursion.cc, Note [CTC on devices]).
struct CtcResult {
    Array loss, grad;
};
[[nodiscard]] CtcResult ctc_forward_backward(const std::vector<Array>& xs, const Array& t, const Array& input_length,
                                             const Array& label_length, int64_t blank);

// softmax_cross_entropy against float targets t of x's shape (softmax_cross_entropy_soft.cc).
[[nodiscard]] Variable soft_target_softmax_cross_entropy(const Variable& x, const Variable& t,
                                                         const SoftmaxCrossEntropyOptions& options);

// Throws ValueError unless `reduce` is one of `valid`, with Chainer's message:
// "only 'sum', 'mean' and 'no' are valid for 'reduce', but 'x' is given".
inline void check_loss_reduce(std::string_view function, std::string_view reduce,
                              std::initializer_list<std::string_view> valid) {
    for (const std::string_view v : valid) {
        if (v == reduce) return;
    }
    std::ostringstream os;
    size_t i = 0;
    for (const std::string_view v : valid) {
        os << (i == 0 ? "" : i + 1 == valid.size() ? " and " : ", ") << "'" << v << "'";
        ++i;
    }
    RENSA_THROW(ValueError, function, ": only ", os.str(), " are valid for 'reduce', but '", reduce, "' is given");
}

// Copies integer labels to the host and throws ValueError naming the first value outside
// [0, high) (other than `ignore`) and its flat position.
inline std::vector<int64_t> check_loss_label_range(std::string_view function, std::string_view name, const Array& t,
                                                   int64_t high, std::optional<int64_t> ignore = std::nullopt) {
    std::vector<int64_t> values = t.to_vector<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) {
        const int64_t v = values[i];
        RENSA_CHECK((v >= 0 && v < high) || (ignore && v == *ignore), ValueError, function, ": label ", name,
                    " at flat position ", i, " is ", v, ", outside [0, ", high, ")");
    }
    return values;
}

// check_loss_label_range where t is on the host; labels on a device are not copied back to
// be checked (See Note [Device index wrap] in core/ops/indexing.cc: the gathers they drive
// wrap there, as in Chainer's CUDA path, where no label check runs either).
inline void check_loss_labels(std::string_view function, std::string_view name, const Array& t, int64_t high,
                              std::optional<int64_t> ignore = std::nullopt) {
    if (t.device().kind == DeviceKind::kNative) (void)check_loss_label_range(function, name, t, high, ignore);
}

}  // namespace rensa::functions::detail
