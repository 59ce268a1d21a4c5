#pragma once
// DeviceGuard: makes GPU `index` current for the calling thread for the guard's life
// (cudaSetDevice), restoring the previous one. Every entry point of the backend that
// touches a device (kernels, copies, allocations) opens one first.

namespace rensa::cuda {

class DeviceGuard {
public:
    explicit DeviceGuard(int index);
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = -1;  // -1: it was already current, nothing to restore
};

}  // namespace rensa::cuda
