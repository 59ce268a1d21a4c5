#pragma once
// chainer.training.triggers.OnceTrigger: fires on its first call only (and, with
// call_on_resume, once more on the first call after a resume).

#include <memory>

#include "training/trigger.h"

namespace rensa::training::triggers {

class OnceTrigger final : public Trigger {
public:
    explicit OnceTrigger(bool call_on_resume = false) : flag_resumed_{call_on_resume} {}
    [[nodiscard]] static std::shared_ptr<OnceTrigger> make(bool call_on_resume = false) {
        return std::make_shared<OnceTrigger>(call_on_resume);
    }

    bool operator()(Trainer& trainer) override;
    // True once it fired (until a resume with call_on_resume).
    bool finished() const override { return !(flag_first_ || flag_resumed_); }
    // "_flag_first" as Chainer.
    void serialize(const serializers::Serializer& serializer) override;

private:
    bool flag_first_ = true;
    bool flag_resumed_;
};

}  // namespace rensa::training::triggers
