#include <iostream>
#include "core/ops/creation.h"
int main() {
    rensa::Array a = rensa::ops::arange(12).reshape({3, 4});
    std::cout << a.transpose().copy().to_vector<double>()[1] << "\n";
}
