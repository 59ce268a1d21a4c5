#pragma once
// The former name of functions/activation/detail.h, kept only because sigmoid.cc and tanh.cc
// still include it (issue 21: once they include detail.h and call expect_float, delete this).
#include "functions/activation/detail.h"  // IWYU pragma: export
