#pragma once
// chainer.training.updaters.StandardUpdater: one step = next batch from the "main"
// iterator, converter, loss from loss_func (or the "main" optimizer's target), backward,
// optimizer update.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/variable.h"
#include "optimizers/optimizer.h"
#include "training/converter.h"
#include "training/iterator.h"
#include "training/updater.h"

namespace rensa::training::updaters {

// The loss of one batch from its converted arrays (as Variables, in the example's order).
using LossFunction = std::function<Variable(const std::vector<Variable>& inputs)>;

struct StandardUpdaterOptions {
    Converter converter = nullptr;                // null: concat_examples
    std::optional<Device> device = std::nullopt;  // where converted batches go (the converter's device)
    LossFunction loss_func = nullptr;             // null: the "main" optimizer's target link, forward(inputs)
    bool auto_new_epoch = true;                   // call optimizer.new_epoch() when the main iterator finishes an epoch
};

class StandardUpdater : public Updater {
public:
    // One iterator and one optimizer, both registered as "main".
    StandardUpdater(IteratorPtr iterator, std::shared_ptr<optimizers::Optimizer> optimizer,
                    StandardUpdaterOptions options = {});
    // Named iterators and optimizers; the iterators must contain "main" (ValueError otherwise). The
    // optimizers may have any names; the default update_core needs "main" (KeyError when it runs).
    StandardUpdater(std::map<std::string, IteratorPtr> iterators,
                    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> optimizers,
                    StandardUpdaterOptions options = {});

    void connect_trainer(Trainer& trainer) override;
    void finalize() override;
    optimizers::Optimizer& get_optimizer(const std::string& name) override;
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> get_all_optimizers() override;
    Iterator& get_iterator(const std::string& name) override;
    // Counts the iteration and calls update_core().
    void update() override;

    int64_t iteration() const override { return iteration_; }
    int64_t epoch() const override;
    double epoch_detail() const override;
    std::optional<double> previous_epoch_detail() const override;
    bool is_new_epoch() const override;

    // As Chainer: "iterator:<name>/...", "optimizer:<name>/...", "model:<name>/..." (the
    // optimizer's target) and "iteration".
    void serialize(const serializers::Serializer& serializer) override;

    const StandardUpdaterOptions& options() const { return options_; }

protected:
    // The step itself; override for a custom update (GAN-style updaters). The default
    // runs batch -> converter -> inputs as Variables -> optimizer.update(loss_func, inputs).
    virtual void update_core();
    int64_t iteration_ = 0;

private:
    std::map<std::string, IteratorPtr> iterators_;
    std::map<std::string, std::shared_ptr<optimizers::Optimizer>> optimizers_;
    StandardUpdaterOptions options_;
};

}  // namespace rensa::training::updaters
