#pragma once
// Thread-local switches of autograd: whether functions record the graph
// (NoBackpropMode / ForceBackpropMode) and the Config read by functions (`train`,
// `debug`). Every switch is an RAII scope that restores the previous value, also
// when an exception leaves the scope.

#include "core/dtype.h"

namespace rensa {

// Chainer's `chainer.config`: one per thread, initialised from global_config() the
// first time the thread reads it.
struct Config {
    bool enable_backprop = true;  // functions record the graph (see NoBackpropMode)
    bool train = true;            // training mode: dropout drops, batch normalization updates statistics
    bool debug = false;           // NaN/Inf checks on forward outputs and backward grads
    // chainer.config.dtype: the dtype of a parameter that neither its initializer nor its link
    // names, taken when it is initialised (links::Parameter). mixed16: 16-bit mixed precision
    // with dtype float16 (Chainer's 'mixed16') or bfloat16 (rensa's 'mixed_bf16'): normalisation
    // links keep float32 parameters and statistics, weight links cast float inputs to their
    // weights' dtype (Note [Mixed precision inputs]), and an optimizer set up under it keeps
    // float32 master weights (Note [Automatic fp32 update]).
    Dtype dtype = Dtype::kFloat32;
    bool mixed16 = false;
};

// The calling thread's configuration.
Config& config();
// Defaults copied into each thread's config on its first use (chainer.global_config).
Config& global_config();

// Sets one field of the calling thread's Config for the scope's lifetime:
//   ConfigScope eval{&Config::train, false};
template <class T>
class ConfigScope {
public:
    ConfigScope(T Config::*member, T value) : member_{member}, previous_{config().*member} {
        config().*member_ = value;
    }
    ~ConfigScope() { config().*member_ = previous_; }
    ConfigScope(const ConfigScope&) = delete;
    ConfigScope& operator=(const ConfigScope&) = delete;

private:
    T Config::*member_;
    T previous_;
};

// True when functions applied now record the graph.
inline bool is_backprop_enabled() { return config().enable_backprop; }
inline bool is_debug() { return config().debug; }

// Functions applied inside the scope build no graph (chainer.no_backprop_mode).
class NoBackpropMode {
public:
    NoBackpropMode() : scope_{&Config::enable_backprop, false} {}

private:
    ConfigScope<bool> scope_;
};

// Functions applied inside the scope record the graph, even inside a NoBackpropMode
// (chainer.force_backprop_mode).
class ForceBackpropMode {
public:
    ForceBackpropMode() : scope_{&Config::enable_backprop, true} {}

private:
    ConfigScope<bool> scope_;
};

}  // namespace rensa
