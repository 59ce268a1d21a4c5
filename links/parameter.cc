#include "links/parameter.h"

#include <utility>

#include "autograd/modes.h"
#include "core/error.h"
#include "links/initializers.h"

namespace rensa::links {

// The metadata every handle of one parameter shares (the array and grad live in the Variable).
struct Parameter::State {
    initializers::InitializerPtr initializer;
    std::optional<Dtype> dtype;  // none: config().dtype when initialised
    Device device = default_device();
    std::shared_ptr<ParameterUpdateRule> update_rule;
    bool update_enabled = true;
};

Parameter::Parameter(Variable variable, std::shared_ptr<State> state)
    : Variable(std::move(variable)), state_{std::move(state)} {}

Parameter::Parameter(Array array, std::string name)
    : Variable(array, true, std::move(name)), state_{std::make_shared<State>()} {
    RENSA_CHECK(array.defined(), ValueError, "Parameter: the initial array is undefined");
    state_->initializer = initializers::from_array(array);
    state_->dtype = array.dtype();
    state_->device = array.device();
}

Parameter::Parameter(initializers::InitializerPtr initializer, std::optional<Shape> shape, std::optional<Dtype> dtype,
                     std::string name)
    : Variable(Variable::without_array(true, std::move(name))), state_{std::make_shared<State>()} {
    state_->initializer = initializer ? std::move(initializer) : std::make_shared<initializers::NaN>();
    state_->dtype = state_->initializer->dtype() ? state_->initializer->dtype() : dtype;
    if (shape) {
        initialize(*shape);
    }
}

Parameter::State& Parameter::state() const {
    RENSA_CHECK(state_ != nullptr, ValueError, "Parameter: the parameter is undefined (default-constructed)");
    return *state_;
}

bool Parameter::is_initialized() const { return defined() && array().defined(); }

void Parameter::initialize(const Shape& shape) const {
    if (is_initialized()) {
        RENSA_CHECK(array().shape() == shape, ValueError, "Parameter.initialize: parameter '", name(),
                    "' is already initialised with shape ", array().shape(), ", cannot initialise it with ", shape);
        return;
    }
    State& s = state();
    s.dtype = s.dtype.value_or(config().dtype);  // fixed from now on
    set_array(s.initializer->generate(shape, *s.dtype, s.device));
    cleargrad();
}

const initializers::InitializerPtr& Parameter::initializer() const { return state().initializer; }

Dtype Parameter::dtype() const { return is_initialized() ? array().dtype() : state().dtype.value_or(config().dtype); }

Device Parameter::device() const { return is_initialized() ? array().device() : state().device; }

void Parameter::to_device(Device device) const {
    state().device = device;
    if (is_initialized()) {
        Variable::to_device(device);
    }
}

ParameterUpdateRule* Parameter::update_rule() const { return state().update_rule.get(); }

void Parameter::set_update_rule(std::shared_ptr<ParameterUpdateRule> rule) const {
    State& s = state();
    s.update_rule = std::move(rule);
    if (s.update_rule) {
        s.update_rule->enabled = s.update_enabled;
    }
}

void Parameter::update() const {
    const State& s = state();
    if (s.update_rule && s.update_enabled && s.update_rule->enabled) {
        s.update_rule->update(*this);
    }
}

bool Parameter::update_enabled() const { return state().update_enabled; }

void Parameter::enable_update() const {
    State& s = state();
    s.update_enabled = true;
    if (s.update_rule) {
        s.update_rule->enabled = true;
    }
}

void Parameter::disable_update() const {
    State& s = state();
    s.update_enabled = false;
    if (s.update_rule) {
        s.update_rule->enabled = false;
    }
}

namespace {

// A new leaf over `array` (or without one), keeping the name.
Variable new_variable(const Parameter& p, const Array& array) {
    return array.defined() ? Variable(array, true, p.name()) : Variable::without_array(true, p.name());
}

}  // namespace

Parameter Parameter::share_copy() const {
    const State& s = state();
    auto state = std::make_shared<State>(State{s.initializer, s.dtype, s.device, nullptr, s.update_enabled});
    return Parameter(new_variable(*this, is_initialized() ? array() : Array{}), std::move(state));
}

Parameter Parameter::deep_copy() const {
    const State& s = state();
    auto state = std::make_shared<State>(State{s.initializer, s.dtype, s.device, nullptr, s.update_enabled});
    return Parameter(new_variable(*this, is_initialized() ? array().copy() : Array{}), std::move(state));
}

void Parameter::serialize(const serializers::Serializer& serializer, std::string_view key) const {
    if (is_initialized()) {
        serializer(key, array());
        return;
    }
    // Uninitialised: saves None, or initialises to the stored shape then copies (Chainer's Link.serialize).
    const Parameter self = *this;
    serializer(key, Array{}, [self](const Array& stored) {
        self.initialize(stored.shape());
        self.array().assign(stored.to_device(self.device()));
    });
}

Parameter Parameter::stand_in(const Variable& variable) const {
    RENSA_CHECK(variable.defined(), ValueError, "Parameter.stand_in: the variable for parameter '", name(),
                "' is undefined");
    return Parameter(variable, state_);
}

}  // namespace rensa::links
