#pragma once
// Shared by the compute bounds of the training benchmarks (gemm_bound.cc for train_mlp,
// benchmarks/train_convnet/conv_bound.cc for train_convnet): the GEMM call rensa's linear
// makes (functions/connection/linear.cc, gemm_2d), a timer that takes the median over
// steps, and the one JSON line run.py reads.
//   <program> [--iters N] [--warmup N] [--dtype float32|bfloat16]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/array.h"
#include "core/backend.h"
#include "core/kernels.h"
#include "core/ops/creation.h"
#include "core/ops/linalg.h"
#include "core/ops/random.h"

namespace rensa::bench {

struct BoundArgs {
    int iters = 50;
    int warmup = 5;
    Dtype dtype = Dtype::kFloat32;
};

inline BoundArgs parse_bound_args(int argc, char** argv) {
    BoundArgs args;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if ((a == "--iters" || a == "--warmup") && has_value) {
            const int v = std::atoi(argv[++i]);
            if (v < (a == "--iters" ? 1 : 0)) {
                std::fprintf(stderr, "%s must be %s, got '%s'\n", a.c_str(), a == "--iters" ? ">= 1" : ">= 0", argv[i]);
                std::exit(2);
            }
            (a == "--iters" ? args.iters : args.warmup) = v;
        } else if (a == "--dtype" && has_value) {
            const std::string d = argv[++i];
            if (d != "float32" && d != "bfloat16") {
                std::fprintf(stderr, "unknown --dtype '%s' (float32 or bfloat16)\n", d.c_str());
                std::exit(2);
            }
            args.dtype = d == "float32" ? Dtype::kFloat32 : Dtype::kBFloat16;
        } else {
            std::fprintf(stderr, "unknown argument '%s'\nusage: [--iters N] [--warmup N] [--dtype float32|bfloat16]\n",
                         a.c_str());
            std::exit(2);
        }
    }
    return args;
}

// out = a @ b (+ beta * out) through the device's GEMM on 2-D views, as linear's gemm_2d.
inline void gemm_2d(const Array& a, const Array& b, const Array& out, double beta = 0.0) {
    Kernels& kernels = global_context().kernels(out.device());
    const auto as_3d = [](const Array& m) { return m.reshape({1, m.shape()[0], m.shape()[1]}); };
    kernels.gemm({.a = as_3d(a), .b = as_3d(b), .out = as_3d(out), .beta = beta});
}

// Named pieces of one training step, timed one after the other in every step; the
// result is the sum of the pieces' medians.
class StepTimer {
public:
    void add(std::string name, std::function<void()> fn) { parts_.push_back({std::move(name), std::move(fn)}); }

    void run(const BoundArgs& args, const char* what, int64_t batch) {
        using clock = std::chrono::steady_clock;
        std::map<std::string, std::vector<double>> times;
        std::vector<double> steps;
        for (int i = 0; i < args.warmup + args.iters; ++i) {
            double step = 0;
            for (auto& [name, fn] : parts_) {
                const auto start = clock::now();
                fn();
                const double s = std::chrono::duration<double>(clock::now() - start).count();
                step += s;
                if (i >= args.warmup) times[name].push_back(s);
            }
            if (i >= args.warmup) steps.push_back(step);
        }
        // The bound: the sum of the pieces' medians (a step's total catches every stall of a
        // loaded machine in one of its pieces); the median whole step is printed beside it.
        double bound = 0;
        for (const auto& part : parts_) bound += median(times[part.first]);
        std::printf(
            "{\"what\": \"%s\", \"dtype\": \"%s\", \"iters\": %d, \"step_ms\": %.4f, "
            "\"whole_step_median_ms\": %.4f, \"images_per_s\": %.1f, \"parts_ms\": {",
            what, args.dtype == Dtype::kFloat32 ? "float32" : "bfloat16", args.iters, bound * 1e3, median(steps) * 1e3,
            static_cast<double>(batch) / bound);
        for (size_t k = 0; k < parts_.size(); ++k) {
            std::printf("%s\"%s\": %.4f", k ? ", " : "", parts_[k].first.c_str(), median(times[parts_[k].first]) * 1e3);
        }
        std::printf("}}\n");
    }

private:
    static double median(std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    }
    std::vector<std::pair<std::string, std::function<void()>>> parts_;
};

// One linear layer's GEMMs, with the calls and views of linear.cc (x (N, in), W (out, in),
// gy (N, out)):
//   forward  y = ones(N, 1) @ b(1, out), then y += x @ W^T     (W^T: a transposed view)
//   backward gx = gy @ W                                      (only when need_gx)
//            gW = gy^T @ x                                    (gy^T: a transposed view)
//            gb = ones(1, N) @ gy
inline void add_linear_layer(StepTimer& timer, const std::string& name, int64_t n, int64_t in, int64_t out,
                             bool need_gx, Dtype dtype) {
    const Array x = ops::uniform({n, in}, 0.0, 1.0, dtype), W = ops::normal({out, in}, 0.0, 0.05, dtype);
    const Array b = ops::normal({1, out}, 0.0, 0.05, dtype), gy = ops::normal({n, out}, 0.0, 0.05, dtype);
    const Array ones_n1 = ops::ones({n, 1}, dtype), ones_1n = ops::ones({1, n}, dtype);
    const Array y = Array::empty({n, out}, dtype), gW = Array::empty({out, in}, dtype);
    const Array gb = Array::empty({1, out}, dtype);
    timer.add(name + " forward", [=] {
        gemm_2d(ones_n1, b, y, 0.0);
        gemm_2d(x, W.transpose(), y, 1.0);
    });
    if (need_gx) timer.add(name + " gx", [=] { (void)ops::matmul(gy, W); });
    timer.add(name + " gW", [=] { gemm_2d(gy.transpose(), x, gW, 0.0); });
    timer.add(name + " gb", [=] { gemm_2d(ones_1n, gy, gb, 0.0); });
}

}  // namespace rensa::bench
