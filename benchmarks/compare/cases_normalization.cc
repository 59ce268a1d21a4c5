#include "benchmarks/compare/cases.h"

namespace rensa::bench {

std::vector<CompareCase> normalization_cases() { return {}; }  // filled by the owner of the normalization functions

}  // namespace rensa::bench
