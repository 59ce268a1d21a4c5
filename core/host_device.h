#pragma once
// RENSA_HOST_DEVICE marks a function that nvcc compiles for the host and the device; the
// host compiler sees nothing. Headers shared by core/native and cuda/ (core/float_to_int.h,
// core/elementwise_table.h, core/window_geometry.h) mark their formulas with it.

#if defined(__CUDACC__)
#define RENSA_HOST_DEVICE __host__ __device__
#else
#define RENSA_HOST_DEVICE
#endif
