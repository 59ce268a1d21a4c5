#include "cuda/conv_descriptors.h"

#include "core/error.h"
#include "cuda/check.h"

namespace rensa::cuda {

cudnnDataType_t cudnn_data_type(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
            return CUDNN_DATA_HALF;
        case Dtype::kBFloat16:
            return CUDNN_DATA_BFLOAT16;
        case Dtype::kFloat32:
            return CUDNN_DATA_FLOAT;
        case Dtype::kFloat64:
            return CUDNN_DATA_DOUBLE;
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            break;
    }
    RENSA_THROW(DtypeError, "convolution: cuDNN takes float dtypes only, got ", dtype_name(dtype));
}

TensorDescriptor::TensorDescriptor(cudnnDataType_t type, const std::vector<int>& dims) {
    check_cudnn(cudnnCreateTensorDescriptor(&desc_), "cudnnCreateTensorDescriptor");
    std::vector<int> strides(dims.size());
    int stride = 1;  // callers checked that every size fits an int
    for (size_t d = dims.size(); d-- > 0;) {
        strides[d] = stride;
        stride *= dims[d];
    }
    try {
        check_cudnn(cudnnSetTensorNdDescriptor(desc_, type, static_cast<int>(dims.size()), dims.data(), strides.data()),
                    "cudnnSetTensorNdDescriptor");
    } catch (...) {
        cudnnDestroyTensorDescriptor(desc_);
        throw;
    }
}

TensorDescriptor::~TensorDescriptor() { cudnnDestroyTensorDescriptor(desc_); }

FilterDescriptor::FilterDescriptor(cudnnDataType_t type, const std::vector<int>& dims) {
    check_cudnn(cudnnCreateFilterDescriptor(&desc_), "cudnnCreateFilterDescriptor");
    try {
        check_cudnn(
            cudnnSetFilterNdDescriptor(desc_, type, CUDNN_TENSOR_NCHW, static_cast<int>(dims.size()), dims.data()),
            "cudnnSetFilterNdDescriptor");
    } catch (...) {
        cudnnDestroyFilterDescriptor(desc_);
        throw;
    }
}

FilterDescriptor::~FilterDescriptor() { cudnnDestroyFilterDescriptor(desc_); }

ConvolutionDescriptor::ConvolutionDescriptor(const std::vector<int>& pad, const std::vector<int>& stride,
                                             const std::vector<int>& dilate, int groups, cudnnDataType_t compute,
                                             cudnnMathType_t math) {
    check_cudnn(cudnnCreateConvolutionDescriptor(&desc_), "cudnnCreateConvolutionDescriptor");
    try {
        check_cudnn(cudnnSetConvolutionNdDescriptor(desc_, static_cast<int>(pad.size()), pad.data(), stride.data(),
                                                    dilate.data(), CUDNN_CROSS_CORRELATION, compute),
                    "cudnnSetConvolutionNdDescriptor");
        check_cudnn(cudnnSetConvolutionGroupCount(desc_, groups), "cudnnSetConvolutionGroupCount");
        set_math_type(math);
    } catch (...) {
        cudnnDestroyConvolutionDescriptor(desc_);
        throw;
    }
}

ConvolutionDescriptor::~ConvolutionDescriptor() { cudnnDestroyConvolutionDescriptor(desc_); }

void ConvolutionDescriptor::set_math_type(cudnnMathType_t math) const {
    check_cudnn(cudnnSetConvolutionMathType(desc_, math), "cudnnSetConvolutionMathType");
}

}  // namespace rensa::cuda
