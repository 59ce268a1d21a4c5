#include "training/extensions/fail_on_non_number.h"

#include "core/error.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

bool all_finite(const Array& array) { return ops::all(ops::isfinite(array)).item<bool>(); }

}  // namespace

FailOnNonNumber::FailOnNonNumber(FailOnNonNumberOptions options) : options_{options} {}

void FailOnNonNumber::operator()(Trainer& trainer) {
    for (const auto& [name, optimizer] : trainer.updater().get_all_optimizers()) {
        for (const auto& [path, param] : optimizer->target().namedparams(/*include_uninit=*/false)) {
            RENSA_CHECK(all_finite(param.array()), Error,
                        "FailOnNonNumber: Kill the process since parameters in "
                        "optimizer '",
                        name, "' diverge: ", name, path, " holds NaN or Inf. R.I.P.");
            const Array grad = param.grad();
            if (!options_.check_grad || !grad.defined()) continue;
            RENSA_CHECK(all_finite(grad), Error, "FailOnNonNumber: Kill the process since gradients in optimizer '",
                        name, "' diverge: the gradient of ", name, path, " holds NaN or Inf. R.I.P.");
        }
    }
}

}  // namespace rensa::training::extensions
