#pragma once
// chainer.training.Updater: one training step per update(), and the iteration/epoch
// counters that triggers read.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "optimizers/optimizer.h"
#include "serializers/serializer.h"
#include "training/iterator.h"

namespace rensa::training {

class Trainer;

class Updater {
public:
    virtual ~Updater() = default;
    // Called by the Trainer's constructor.
    virtual void connect_trainer(Trainer& trainer) { (void)trainer; }
    // Called when training ends: finalizes the iterators.
    virtual void finalize() {}
    // The optimizer registered as `name` ("main"); KeyError naming the names present.
    virtual optimizers::Optimizer& get_optimizer(const std::string& name) = 0;
    // name -> optimizer, ordered by name.
    virtual std::map<std::string, std::shared_ptr<optimizers::Optimizer>> get_all_optimizers() = 0;
    // The iterator registered as `name`; KeyError naming the names present.
    virtual Iterator& get_iterator(const std::string& name) = 0;
    // One training step.
    virtual void update() = 0;

    // Steps done.
    virtual int64_t iteration() const = 0;
    // The main iterator's counters (see Iterator).
    virtual int64_t epoch() const = 0;
    virtual double epoch_detail() const = 0;
    virtual std::optional<double> previous_epoch_detail() const = 0;
    virtual bool is_new_epoch() const = 0;

    virtual void serialize(const serializers::Serializer& serializer) = 0;
};

using UpdaterPtr = std::shared_ptr<Updater>;

}  // namespace rensa::training
