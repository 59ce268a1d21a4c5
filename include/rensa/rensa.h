#pragma once
// The whole C++ API of rensa in one include, for a quick start (a program that wants short
// compile times includes the module headers it uses instead, e.g. <rensa/links/links.h>):
//
//   #include <rensa/rensa.h>
//   namespace F = rensa::functions;
//   namespace L = rensa::links;
//
// Installed as <prefix>/include/rensa/rensa.h; the module headers it includes are rooted at
// <prefix>/include/rensa, which the package's targets and rensa.pc put on the include path
// (docs/design.md, "Building"). The CUDA backend and the distributed module are included when
// this build has them (RENSA_HAS_CUDA, RENSA_HAS_DISTRIBUTED in rensa/version.h).

#include "rensa/version.h"  // IWYU pragma: export

// core: arrays, devices, dtypes, errors, the random generator, the reporter and the
// non-differentiable array routines.
#include "core/array.h"              // IWYU pragma: export
#include "core/device.h"             // IWYU pragma: export
#include "core/dtype.h"              // IWYU pragma: export
#include "core/error.h"              // IWYU pragma: export
#include "core/half.h"               // IWYU pragma: export
#include "core/ops/convolution.h"    // IWYU pragma: export
#include "core/ops/creation.h"       // IWYU pragma: export
#include "core/ops/elementwise.h"    // IWYU pragma: export
#include "core/ops/indexing.h"       // IWYU pragma: export
#include "core/ops/linalg.h"         // IWYU pragma: export
#include "core/ops/manipulation.h"   // IWYU pragma: export
#include "core/ops/normalization.h"  // IWYU pragma: export
#include "core/ops/operators.h"      // IWYU pragma: export
#include "core/ops/pooling.h"        // IWYU pragma: export
#include "core/ops/random.h"         // IWYU pragma: export
#include "core/ops/reduction.h"      // IWYU pragma: export
#include "core/ops/roi.h"            // IWYU pragma: export
#include "core/ops/softmax.h"        // IWYU pragma: export
#include "core/ops/sort.h"           // IWYU pragma: export
#include "core/random.h"             // IWYU pragma: export
#include "core/reporter.h"           // IWYU pragma: export
#include "core/scalar.h"             // IWYU pragma: export
#include "core/shape.h"              // IWYU pragma: export

#include "autograd/autograd.h"       // IWYU pragma: export
#include "functions/functions.h"     // IWYU pragma: export
#include "links/links.h"             // IWYU pragma: export
#include "optimizers/optimizers.h"   // IWYU pragma: export
#include "serializers/npz.h"         // IWYU pragma: export
#include "serializers/serializer.h"  // IWYU pragma: export
#include "training/training.h"       // IWYU pragma: export

#if RENSA_HAS_CUDA
#include "cuda/cuda_backend.h"  // IWYU pragma: export
#endif
#if RENSA_HAS_DISTRIBUTED
#include "distributed/distributed.h"  // IWYU pragma: export
#endif
