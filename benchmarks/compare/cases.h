#pragma once
// Side-by-side cases against PyTorch (benchmarks/compare/compare.py): each case builds its
// inputs once and returns one step (forward + backward) to time. The same names appear in
// benchmarks/compare/torch_cases.py with the PyTorch equivalent.

#include <functional>
#include <string>
#include <vector>

namespace rensa::bench {

struct CompareCase {
    std::string name;
    // Makes the inputs and returns the timed step (forward + backward).
    std::function<std::function<void()>()> setup;
};

// One list per owner file (cases_<family>.cc).
std::vector<CompareCase> connection_cases();  // cases_connection.cc: linear_784_1000, linear_1000_1000
std::vector<CompareCase>
convolution_cases();                       // cases_convolution.cc: conv_1_32_k5_28, conv_32_64_k5_12, conv_64_64_k3_32
std::vector<CompareCase> pooling_cases();  // cases_pooling.cc: max_pooling_2d
std::vector<CompareCase> normalization_cases();  // cases_normalization.cc: batch_normalization, softmax_cross_entropy
std::vector<CompareCase> activation_cases();     // cases_activation.cc: relu

}  // namespace rensa::bench
