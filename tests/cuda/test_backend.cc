// The CUDA backend: device count, installation, copies between the host and cuda:0,
// streams, events, pinned buffers and library handles. The first cases run on machines
// without a GPU too (they check what happens there); the [cuda] ones need cuda:0.
#include <cuda_runtime.h>
#include <catch2/catch.hpp>
#include <latch>
#include <thread>

#include "core/array.h"
#include "core/backend.h"
#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/cuda_backend.h"
#include "cuda/handles.h"
#include "cuda/pinned.h"
#include "cuda/stream.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

using Catch::Matchers::Contains;

// Values copied back to the host (exact comparison: copies never round).
void check_same_values(const Array& actual, const Array& expected) {
    REQUIRE(actual.shape() == expected.shape());
    REQUIRE(actual.dtype() == expected.dtype());
    CHECK(to_doubles(actual) == to_doubles(expected));
}

}  // namespace

TEST_CASE("cuda runtime: without a GPU nothing is installed") {
    if (cuda::device_count() > 0) return;  // a GPU machine: the [cuda] cases below cover it
    CHECK_FALSE(cuda::is_available());
    Context context;
    CHECK(cuda::install_backend(context) == 0);
    CHECK_FALSE(context.has_backend(DeviceKind::kCuda));
    CHECK(cuda::install_backend() == 0);
    CHECK_FALSE(global_context().has_backend(DeviceKind::kCuda));
    CHECK_THROWS_AS(cuda::make_cuda_backend(), DeviceError);
    CHECK_THROWS_AS(cuda::caching_allocator(0), DeviceError);
}

TEST_CASE("cuda runtime: without a GPU, arrays on cuda:0 throw a DeviceError naming cuda") {
    if (cuda::device_count() > 0) return;
    CHECK_THROWS_AS((void)Array::empty({2}, Dtype::kFloat32, Device::cuda(0)), DeviceError);
    CHECK_THROWS_WITH((void)Array::empty({2}, Dtype::kFloat32, Device::cuda(0)), Contains("cuda"));
    const Array x = random_array({3}, Dtype::kFloat32, 1);
    CHECK_THROWS_WITH((void)x.to_device(Device::cuda(0)), Contains("cuda"));
}

TEST_CASE("cuda: backend is installed with every device", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    CHECK(cuda::device_count() > 0);
    CHECK(global_context().has_backend(DeviceKind::kCuda));
    CHECK(global_context().backend(DeviceKind::kCuda).device_count() == cuda::device_count());
    CHECK(cuda::install_backend() == cuda::device_count());  // a second call keeps the installed one
    CHECK_THROWS_AS((void)Array::empty({2}, Dtype::kFloat32, Device::cuda(cuda::device_count())), DeviceError);
}

TEST_CASE("cuda: to_device round trip for every dtype and shape", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Shape shapes[] = {{},        {1},     {7},
                            {3, 5, 2}, {70001}, {257, 1025}};  // the last two are staged through pinned memory
    uint64_t seed = 10;
    for (const Dtype dtype : kCudaAllDtypes) {
        for (const Shape& shape : shapes) {
            INFO("dtype " << dtype_name(dtype) << ", shape " << shape);
            const Array x = random_array(shape, dtype, ++seed);
            const Array on_gpu = x.to_device(cuda0());
            CHECK(on_gpu.device() == cuda0());
            const Array back = on_gpu.to_device(Device::native());
            CHECK(back.device() == Device::native());
            check_same_values(back, x);
        }
    }
}

TEST_CASE("cuda: zero-size arrays move between host and cuda:0", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Shape& shape : {Shape{0}, Shape{3, 0, 2}}) {
        const Array x = Array::empty(shape, Dtype::kFloat32, Device::native());
        const Array on_gpu = x.to_device(cuda0());
        CHECK(on_gpu.device() == cuda0());
        CHECK(on_gpu.shape() == shape);
        const Array back = on_gpu.to_device(Device::native());
        CHECK(back.shape() == shape);
        CHECK(back.size() == 0);
    }
}

TEST_CASE("cuda: non-contiguous sources go to the device in logical order", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaFloatDtypes) {
        for (const Layout layout : kAllLayouts) {
            INFO("dtype " << dtype_name(dtype) << ", layout " << layout_name(layout));
            const Array x = with_layout(random_array({6, 9}, dtype, 3), layout);
            const Array back = x.to_device(cuda0()).to_device(Device::native());
            check_same_values(back, x.copy());
            // A non-contiguous view on the GPU comes back in logical order too.
            const Array g = to_cuda(random_array({6, 9}, dtype, 4), layout);
            CHECK(g.device() == cuda0());
            check_same_values(g.to_device(Device::native()), random_array({6, 9}, dtype, 4));
        }
    }
}

TEST_CASE("cuda: copy_between on cuda:0 and synchronize", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    Backend& backend = global_context().backend(DeviceKind::kCuda);
    for (const Shape& shape : {Shape{5}, Shape{1000, 77}}) {
        const Array x = random_array(shape, Dtype::kFloat32, 5);
        const Array src = x.to_device(cuda0());
        const Array dst = Array::empty(shape, Dtype::kFloat32, cuda0());
        backend.copy_between(0, src.raw_data(), 0, dst.raw_data(), src.nbytes());
        backend.synchronize(0);
        check_same_values(dst.to_device(Device::native()), x);
    }
    if (cuda::device_count() > 1) {  // between two GPUs
        const Array x = random_array({300, 301}, Dtype::kFloat64, 6);
        const Array on1 = x.to_device(cuda0()).to_device(Device::cuda(1));
        CHECK(on1.device() == Device::cuda(1));
        check_same_values(on1.to_device(Device::native()), x);
    }
}

TEST_CASE("cuda: StreamScope changes the current stream and copies follow it", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const cudaStream_t own = cuda::default_stream(0);
    CHECK(own != nullptr);
    CHECK(cuda::current_stream(0) == own);
    cuda::Stream side{0};
    CHECK(side.device() == 0);
    {
        cuda::StreamScope scope{0, side.get()};
        CHECK(cuda::current_stream(0) == side.get());
        {
            cuda::StreamScope inner{0, own};
            CHECK(cuda::current_stream(0) == own);
        }
        CHECK(cuda::current_stream(0) == side.get());
        const Array x = random_array({513, 129}, Dtype::kFloat32, 7);
        check_same_values(x.to_device(cuda0()).to_device(Device::native()), x);
        side.synchronize();
    }
    CHECK(cuda::current_stream(0) == own);
}

TEST_CASE("cuda: events order streams and report completion", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cuda::Event fresh{0};
    CHECK(fresh.query());  // nothing recorded yet
    cuda::Stream side{0};
    const Array x = random_array({1 << 16}, Dtype::kFloat32, 8);
    const Array g = x.to_device(cuda0());
    const Array dst = Array::empty(x.shape(), Dtype::kFloat32, cuda0());
    cuda::Event written{0};
    written.record(cuda::current_stream(0));
    written.wait(side.get());  // side's copy below runs after the upload (and dst's earlier users)
    {
        cuda::StreamScope scope{0, side.get()};
        global_context().backend(DeviceKind::kCuda).copy_between(0, g.raw_data(), 0, dst.raw_data(), g.nbytes());
    }
    cuda::Event copied{0};
    copied.record(side.get());
    copied.synchronize();
    CHECK(copied.query());
    check_same_values(dst.to_device(Device::native()), x);
}

TEST_CASE("cuda: pinned buffers are cached and reused", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const int64_t in_use = cuda::pinned_bytes_in_use();
    void* first = nullptr;
    {
        std::shared_ptr<void> buffer = cuda::pinned_buffer(100000);
        REQUIRE(buffer != nullptr);
        first = buffer.get();
        CHECK(cuda::pinned_bytes_in_use() >= in_use + 100000);
        static_cast<char*>(buffer.get())[99999] = 1;  // writable host memory
    }
    CHECK(cuda::pinned_bytes_in_use() == in_use);
    CHECK(cuda::pinned_bytes_cached() >= 100000);
    {
        std::shared_ptr<void> again = cuda::pinned_buffer(99900);  // same size class
        CHECK(again.get() == first);
    }
    cuda::empty_pinned_cache();
    CHECK(cuda::pinned_bytes_cached() == 0);
}

TEST_CASE("cuda: cuBLAS and cuDNN handles follow the current stream and TF32 setting", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cublasHandle_t blas = cuda::cublas_handle(0);
    REQUIRE(blas != nullptr);
    CHECK(cuda::cublas_handle(0) == blas);  // made once
    cudaStream_t bound = nullptr;
    REQUIRE(cublasGetStream(blas, &bound) == CUBLAS_STATUS_SUCCESS);
    CHECK(bound == cuda::current_stream(0));
    cuda::Stream side{0};
    {
        cuda::StreamScope scope{0, side.get()};
        REQUIRE(cublasGetStream(cuda::cublas_handle(0), &bound) == CUBLAS_STATUS_SUCCESS);
        CHECK(bound == side.get());
    }
    const bool was = cuda::allow_tf32();
    cuda::set_allow_tf32(true);
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    REQUIRE(cublasGetMathMode(cuda::cublas_handle(0), &mode) == CUBLAS_STATUS_SUCCESS);
    // Reduced-precision reductions stay disallowed in both modes (cuda/handles.cc).
    const auto disallow = static_cast<int>(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    CHECK(static_cast<int>(mode) == (static_cast<int>(CUBLAS_TF32_TENSOR_OP_MATH) | disallow));
    cuda::set_allow_tf32(false);
    REQUIRE(cublasGetMathMode(cuda::cublas_handle(0), &mode) == CUBLAS_STATUS_SUCCESS);
    CHECK(static_cast<int>(mode) == (static_cast<int>(CUBLAS_DEFAULT_MATH) | disallow));
    cuda::set_allow_tf32(was);

    cudnnHandle_t dnn = cuda::cudnn_handle(0);
    REQUIRE(dnn != nullptr);
    cudaStream_t dnn_stream = nullptr;
    REQUIRE(cudnnGetStream(dnn, &dnn_stream) == CUDNN_STATUS_SUCCESS);
    CHECK(dnn_stream == cuda::current_stream(0));
}

TEST_CASE("cuda: a destroyed Stream's stream goes to the next Stream of its device and priority", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    cudaStream_t first = nullptr;
    {
        cuda::Stream a{0};
        first = a.get();
        REQUIRE(first != nullptr);
        CHECK(first != cuda::default_stream(0));
    }  // back to the pool of (cuda:0, priority 0), not destroyed (Note [Stream pool] in cuda/stream.h)
    int least = 0, greatest = 0;
    REQUIRE(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
    if (greatest != 0) {  // another priority is another pool
        cuda::Stream urgent{0, greatest};
        CHECK(urgent.get() != first);
        int priority = 0;
        REQUIRE(cudaStreamGetPriority(urgent.get(), &priority) == cudaSuccess);
        CHECK(priority == greatest);
    }
    cuda::Stream again{0};
    CHECK(again.get() == first);
    cuda::Stream other{0};  // `again` holds it: another stream
    CHECK(other.get() != first);
    {
        cuda::StreamScope scope{0, again.get()};  // the pooled stream still works
        const Array x = random_array({300, 41}, Dtype::kFloat32, 12);
        check_same_values(x.to_device(cuda0()).to_device(Device::native()), x);
    }
    again.synchronize();
}

namespace {

// The handles one thread saw (any failure recorded: Catch2's assertions stay on the main thread).
struct SeenHandles {
    cublasHandle_t blas = nullptr;
    cudnnHandle_t dnn = nullptr;
    cudaStream_t blas_stream = nullptr;
    bool failed = false;
};

void see_handles(SeenHandles& seen) {
    try {
        seen.blas = cuda::cublas_handle(0);
        seen.dnn = cuda::cudnn_handle(0);
        seen.failed = cublasGetStream(seen.blas, &seen.blas_stream) != CUBLAS_STATUS_SUCCESS;
    } catch (...) {
        seen.failed = true;
    }
}

}  // namespace

TEST_CASE("cuda: each thread has its own cuBLAS and cuDNN handles, reused by later threads", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    SeenHandles main_thread, a, b;
    see_handles(main_thread);
    std::latch both_have{2};  // a and b are alive together
    std::thread ta{[&] {
        see_handles(a);
        both_have.arrive_and_wait();
    }};
    std::thread tb{[&] {
        see_handles(b);
        both_have.arrive_and_wait();
    }};
    ta.join();
    tb.join();
    REQUIRE_FALSE(main_thread.failed);
    REQUIRE_FALSE(a.failed);
    REQUIRE_FALSE(b.failed);
    CHECK(a.blas != b.blas);
    CHECK(a.dnn != b.dnn);
    CHECK(a.blas != main_thread.blas);
    CHECK(b.blas != main_thread.blas);
    CHECK(a.dnn != main_thread.dnn);
    CHECK(b.dnn != main_thread.dnn);
    CHECK(a.blas_stream == cuda::default_stream(0));  // bound to that thread's current stream
    // A thread started after others ended takes the handles given back last (Note [Per-thread handles]).
    SeenHandles c, d;
    std::thread{[&] { see_handles(c); }}.join();
    std::thread{[&] { see_handles(d); }}.join();
    REQUIRE_FALSE(c.failed);
    REQUIRE_FALSE(d.failed);
    CHECK((c.blas == a.blas || c.blas == b.blas));
    CHECK((c.dnn == a.dnn || c.dnn == b.dnn));
    CHECK(d.blas == c.blas);
    CHECK(d.dnn == c.dnn);
    CHECK(cuda::cublas_handle(0) == main_thread.blas);  // the main thread keeps its own
    CHECK(cuda::cudnn_handle(0) == main_thread.dnn);
}

}  // namespace rensa::testing
