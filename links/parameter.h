#pragma once
// Parameter (chainer.Parameter): a Variable owned by a link, with an initializer, a
// lazily known shape, an update-rule slot that an optimizer fills, and an update switch.
//
// Parameter is an aliasing handle like Variable: copies of the handle share the array,
// the grad and the metadata. Link::copy makes *new* parameters over the same arrays
// (grads and update rules not shared); see Note [Link copies] in links/link.h.
//
// Lazy shape: Parameter(initializer) without a shape is uninitialised: is_initialized()
// is false and array() is undefined until initialize(shape), which a link calls at its
// first forward (Linear(std::nullopt, 100) learns in_size from x).

#include <memory>
#include <optional>
#include <string>

#include "autograd/variable.h"
#include "links/initializer.h"
#include "serializers/serializer.h"

namespace rensa::links {

class Parameter;

// The per-parameter hook an optimizer installs (optimizers::UpdateRule implements it).
class ParameterUpdateRule {
public:
    virtual ~ParameterUpdateRule() = default;
    // Updates param's array from its grad (does nothing when the grad is None).
    virtual void update(const Parameter& param) = 0;
    virtual void serialize(const serializers::Serializer& serializer) = 0;
    // Chainer's UpdateRule.enabled: a disabled rule leaves its parameter unchanged.
    bool enabled = true;
};

class Parameter : public Variable {
public:
    Parameter() = default;  // undefined (holds nothing)
    // Initialised now, over `array` (aliased).
    explicit Parameter(Array array, std::string name = {});
    // With an initializer (null: initializers::NaN, Chainer's default): initialised now when
    // `shape` is given, else on the first initialize(shape). `dtype` is used when the
    // initializer names none; without either, config().dtype when the array is made (Chainer's
    // config.dtype).
    explicit Parameter(initializers::InitializerPtr initializer, std::optional<Shape> shape = std::nullopt,
                       std::optional<Dtype> dtype = std::nullopt, std::string name = {});

    bool is_initialized() const;
    // Creates the array of `shape` with the initializer, on the parameter's device (the
    // last to_device, else the default device); the grad becomes None. Throws ValueError
    // when already initialised with another shape (same shape: no-op).
    void initialize(const Shape& shape) const;

    const initializers::InitializerPtr& initializer() const;
    // The dtype the array has, or will have once initialised (config().dtype now when the
    // parameter names none).
    Dtype dtype() const;
    // The device the array is on, or will be created on.
    Device device() const;
    // Moves the array and grad to `device`, or records it for the lazy initialisation.
    void to_device(Device device) const;

    // The optimizer's rule for this parameter (null before Optimizer::setup).
    ParameterUpdateRule* update_rule() const;
    void set_update_rule(std::shared_ptr<ParameterUpdateRule> rule) const;
    // Runs the update rule when there is one and updates are enabled (Chainer's Parameter.update).
    void update() const;
    // Chainer's update_enabled / enable_update / disable_update (also switches the rule).
    bool update_enabled() const;
    void enable_update() const;
    void disable_update() const;

    // A new Parameter over the same array (aliased) with no grad and no update rule, the
    // same initializer, device and update switch: what Link::copy("share") gives.
    [[nodiscard]] Parameter share_copy() const;
    // Same, over a copy of the array (Link::copy("copy")).
    [[nodiscard]] Parameter deep_copy() const;
    // `variable` itself (its node: gradients flow into the graph that made it) as a Parameter
    // with this one's initializer, rule and switches: what a link hook puts in place of a
    // weight for one forward (SpectralNormalization's W / sigma; Link::replace_param).
    [[nodiscard]] Parameter stand_in(const Variable& variable) const;

    // Saves the array (None marker when uninitialised) or loads it: in place when
    // initialised, else initialises to the stored shape then copies (Chainer's Link.serialize).
    void serialize(const serializers::Serializer& serializer, std::string_view key) const;

private:
    struct State;
    Parameter(Variable variable, std::shared_ptr<State> state);
    State& state() const;
    std::shared_ptr<State> state_;
};

}  // namespace rensa::links
