#pragma once
// Chainer's initializers with its names, arguments and defaults. Each is a class (use
// std::make_shared<initializers::HeNormal>(...)); a scalar or an array where Chainer
// accepts one goes through initializers::constant / initializers::from_array.
//
//   Constant(fill_value)  Zero  One  NaN
//   Normal(scale = 0.05)  Uniform(scale = 0.05)         (N(0, scale^2), U(-scale, scale))
//   LeCunNormal(scale = 1)   LeCunUniform(scale = 1)     (fan_in)
//   GlorotNormal(scale = 1)  GlorotUniform(scale = 1)    (fan_in + fan_out)
//   HeNormal(scale = 1, fan_option = "fan_in")  HeUniform(scale = 1, fan_option = "fan_in")
//   Orthogonal(scale = 1)   Identity(scale = 1)
//   UpsamplingDeconvFilter(interpolation = "linear")  DownsamplingConvFilter(interpolation = "linear")
//                                                    (links/initializers/sampling.h)
//
// The default of Linear/Convolution weights is LeCunNormal, of biases Constant(0).

#include <memory>
#include <string>

#include "links/initializer.h"

namespace rensa::initializers {

class Constant : public Initializer {
public:
    explicit Constant(double fill_value, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;
    double fill_value() const { return fill_value_; }

private:
    double fill_value_;
};

class Zero : public Constant {
public:
    explicit Zero(std::optional<Dtype> dtype = std::nullopt) : Constant(0.0, dtype) {}
};
class One : public Constant {
public:
    explicit One(std::optional<Dtype> dtype = std::nullopt) : Constant(1.0, dtype) {}
};
// Chainer's default for Link.add_param without an initializer: NaN, so a forgotten
// initialisation shows.
class NaN : public Constant {
public:
    explicit NaN(std::optional<Dtype> dtype = std::nullopt);
};

// Copies a given array (shape must match exactly; Chainer's numpy-array initializer).
class FromArray : public Initializer {
public:
    explicit FromArray(Array value);
    void operator()(const Array& array) const override;

private:
    Array value_;
};

class Normal : public Initializer {
public:
    explicit Normal(double scale = 0.05, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

class Uniform : public Initializer {
public:
    explicit Uniform(double scale = 0.05, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

class LeCunNormal : public Initializer {
public:
    explicit LeCunNormal(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

class LeCunUniform : public Initializer {
public:
    explicit LeCunUniform(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

class GlorotNormal : public Initializer {
public:
    explicit GlorotNormal(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

class GlorotUniform : public Initializer {
public:
    explicit GlorotUniform(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

// fan_option: "fan_in" or "fan_out" (ValueError otherwise).
class HeNormal : public Initializer {
public:
    explicit HeNormal(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt, std::string fan_option = "fan_in");
    void operator()(const Array& array) const override;

private:
    double scale_;
    std::string fan_option_;
};

class HeUniform : public Initializer {
public:
    explicit HeUniform(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt,
                       std::string fan_option = "fan_in");
    void operator()(const Array& array) const override;

private:
    double scale_;
    std::string fan_option_;
};

// Rows (flattened over shape[1:]) orthonormal when shape[0] <= prod(shape[1:]), else
// columns; times scale. Needs at least 2 dims.
class Orthogonal : public Initializer {
public:
    explicit Orthogonal(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

// scale * I; needs a 2-d square array.
class Identity : public Initializer {
public:
    explicit Identity(double scale = 1.0, std::optional<Dtype> dtype = std::nullopt);
    void operator()(const Array& array) const override;

private:
    double scale_;
};

// Shorthands for Chainer's "a scalar or an array is also an initializer".
[[nodiscard]] InitializerPtr constant(double fill_value);
[[nodiscard]] InitializerPtr from_array(const Array& value);
// initializer when set, else `fallback` (Chainer's _get_initializer with a default).
[[nodiscard]] InitializerPtr or_default(InitializerPtr initializer, InitializerPtr fallback);

}  // namespace rensa::initializers
