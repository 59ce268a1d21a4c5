// oneDNN matmul for bfloat16 gemm. Note [bf16 gemm]: oneDNN 2.6 (Debian 12) exports no
// bfloat16 gemm in its C API (dnnl_gemm_bf16bf16f32 is internal there), so bfloat16 goes
// through a matmul primitive with bf16 src, weights and dst. Its brgemm kernels accumulate
// in float32 and round once into the bf16 dst; beta != 0 is a sum post-op (read as float32
// before that rounding) and alpha an output scale. On this Zen 4 (avx512_core_bf16, vdpbf16ps)
// at the MLP's shapes (100x784x1000, 100x1000x1000, 1000x784x100, ...) it runs about twice as
// fast as dnnl_sgemm on the same sizes, where the float32-temporary path it replaces also
// converted every operand. Only where oneDNN's effective ISA has native bf16 dot products
// (avx512_core_bf16, AMX): capped at avx512_core (DNNL_MAX_CPU_ISA) oneDNN emulates them at
// about 0.4x sgemm's rate on the MLP's shapes (one thread), where the float32 temporaries
// reach about 0.65x, so they stay the path there. A primitive takes 0.3-1 ms to create, so
// primitives are cached per problem (shapes, strides, alpha, beta); a problem oneDNN only
// has its reference kernel for (e.g. neither axis of a matrix with unit stride) caches an
// empty entry and takes the float32-temporary path from then on.

#include "core/native/gemm_dnnl.h"

#ifdef RENSA_WITH_DNNL

#include <oneapi/dnnl/dnnl.h>

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <tuple>
#include <utility>

namespace rensa::native {
namespace {

using dnnl::memory;

dnnl::engine& cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

// dims and strides (in elements) of one 3-D operand as oneDNN is told them.
struct Layout3 {
    std::array<int64_t, 3> dims{}, strides{};
    auto operator<=>(const Layout3&) const = default;
};

// A length-1 axis may carry any stride in rensa; oneDNN recognises plain layouts by their
// strides, so such axes get the stride a dense layout would give them. A broadcast batch
// (stride 0) becomes a batch of 1, which matmul broadcasts.
Layout3 layout_of(const Array& x) {
    const int64_t item = x.itemsize();
    Layout3 l{{x.shape()[0], x.shape()[1], x.shape()[2]},
              {x.strides()[0] / item, x.strides()[1] / item, x.strides()[2] / item}};
    auto& [b, r, c] = l.dims;
    auto& [sb, sr, sc] = l.strides;
    if (r == 1 && c == 1) {
        sr = sc = 1;
    } else if (r == 1) {
        sr = sc == 1 ? c : 1;
    } else if (c == 1) {
        sc = 1;  // row-major with ld = sr: oneDNN's JIT kernels write a row-major dst only
    }
    if (b > 1 && sb == 0) b = 1;
    if (b == 1) sb = std::max(r * sr, c * sc);
    return l;
}

bool strides_in_elements(const Array& x) {
    for (int i = 0; i < 3; ++i) {
        if (x.strides()[i] % x.itemsize() != 0 || x.strides()[i] < 0) return false;
    }
    return true;
}

memory::desc desc_of(const Layout3& l) {
    return {memory::dims(l.dims.begin(), l.dims.end()), memory::data_type::bf16,
            memory::dims(l.strides.begin(), l.strides.end())};
}

struct Problem {
    Layout3 a, b, c;
    float alpha, beta;
    auto operator<=>(const Problem&) const = default;
};

struct Plan {
    memory::desc a, b, c;
    dnnl::matmul matmul;
};

std::shared_ptr<const Plan> build_plan(const Problem& p) {
    dnnl::primitive_attr attr;
    if (p.alpha != 1.0f) attr.set_output_scales(0, {p.alpha});
    if (p.beta != 0.0f) {
        dnnl::post_ops ops;
        ops.append_sum(p.beta);
        attr.set_post_ops(ops);
    }
    const memory::desc a = desc_of(p.a), b = desc_of(p.b), c = desc_of(p.c);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, cpu_engine());
    if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) return nullptr;  // scalar loops: slower than sgemm
    return std::make_shared<const Plan>(Plan{a, b, c, dnnl::matmul(pd)});
}

// The cached plan of a problem; null when oneDNN refuses it. See Note [bf16 gemm].
std::shared_ptr<const Plan> find_plan(const Problem& p) {
    constexpr size_t kMaxPlans = 512;  // shapes that keep changing must not grow this without bound
    static std::mutex mutex;
    static std::map<Problem, std::shared_ptr<const Plan>> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(p); it != cache.end()) return it->second;
    std::shared_ptr<const Plan> plan;
    try {
        plan = build_plan(p);
    } catch (const dnnl::error&) {
        plan = nullptr;
    }
    if (cache.size() >= kMaxPlans) cache.clear();
    cache.emplace(p, plan);
    return plan;
}

dnnl_cpu_isa_t effective_isa() {
    static const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();  // CPUID and DNNL_MAX_CPU_ISA, no JIT
    return isa;
}

bool native_bf16_dot(dnnl_cpu_isa_t isa) {
    return isa == dnnl_cpu_isa_avx512_core_bf16 || isa == dnnl_cpu_isa_avx512_core_amx;
}

const char* isa_name(dnnl_cpu_isa_t isa) {
    constexpr std::array<std::pair<dnnl_cpu_isa_t, const char*>, 8> kNames{{
        {dnnl_cpu_isa_sse41, "sse41"},
        {dnnl_cpu_isa_avx, "avx"},
        {dnnl_cpu_isa_avx2, "avx2"},
        {dnnl_cpu_isa_avx2_vnni, "avx2_vnni"},
        {dnnl_cpu_isa_avx512_core, "avx512_core"},
        {dnnl_cpu_isa_avx512_core_vnni, "avx512_core_vnni"},
        {dnnl_cpu_isa_avx512_core_bf16, "avx512_core_bf16"},
        {dnnl_cpu_isa_avx512_core_amx, "avx512_core_amx"},
    }};
    for (const auto& [value, name] : kNames) {
        if (value == isa) return name;
    }
    return "other";
}

}  // namespace

bool dnnl_gemm_bf16(const Array& a, const Array& b, const Array& c, double alpha, double beta) {
    if (!native_bf16_dot(effective_isa())) return false;  // see Note [bf16 gemm]
    if (!strides_in_elements(a) || !strides_in_elements(b) || !strides_in_elements(c)) return false;
    const int64_t item = c.itemsize();
    if (c.strides()[2] != item && c.strides()[1] == item && c.shape()[2] > 1) {
        // column-major c: c^T = b^T @ a^T is row-major, which oneDNN's JIT kernels write
        return dnnl_gemm_bf16(b.swapaxes(1, 2), a.swapaxes(1, 2), c.swapaxes(1, 2), alpha, beta);
    }
    if (c.shape()[0] > 1 && c.strides()[0] == 0) return false;  // the output's batches overlap
    const Problem problem{layout_of(a), layout_of(b), layout_of(c), static_cast<float>(alpha),
                          static_cast<float>(beta)};
    const auto plan = find_plan(problem);
    if (!plan) return false;
    dnnl::stream stream(cpu_engine());
    const memory ma(plan->a, cpu_engine(), a.raw_data()), mb(plan->b, cpu_engine(), b.raw_data());
    const memory mc(plan->c, cpu_engine(), c.raw_data());
    plan->matmul.execute(stream, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    stream.wait();
    return true;
}

std::string bf16_gemm_info() {
    const dnnl_cpu_isa_t isa = effective_isa();
    const char* name = isa_name(isa);
    if (native_bf16_dot(isa)) return std::string("oneDNN matmul (ISA ") + name + ", native bf16 dot products)";
    const bool avx512 = (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
    return std::string("float32 temporaries and sgemm (ISA ") + name +
           (avx512 ? ", bf16 dot products emulated: slower than sgemm)" : ", no bf16 dot products)");
}

}  // namespace rensa::native

#else  // no oneDNN: bfloat16 goes through float32 temporaries and OpenBLAS

namespace rensa::native {
bool dnnl_gemm_bf16(const Array&, const Array&, const Array&, double, double) { return false; }
std::string bf16_gemm_info() { return "float32 temporaries and OpenBLAS sgemm (rensa built without oneDNN)"; }
}  // namespace rensa::native

#endif
