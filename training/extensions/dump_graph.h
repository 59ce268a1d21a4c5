#pragma once
// chainer.training.extensions.DumpGraph: writes the computational graph behind an
// observed value (the loss) as Graphviz DOT to "<out>/<filename>", once, after the first
// iteration.
//
//   trainer.extend(std::make_shared<extensions::DumpGraph>("main/loss"));
//
// Note [DumpGraph root]: our observations hold Arrays, not Variables (core/reporter.h), so
// the observed array is matched back to its Variable: from initialize() until the dump, a
// FunctionHook records (weakly) the functions applied in the current iteration, and the
// root is the live output of one of them whose array is the observed one (same storage,
// offset and shape). Failing that, a links::Classifier among the optimizers' targets whose
// `loss`, `y` or `accuracy` is that array. So the Variable must still be alive when the
// extension runs: links::Classifier keeps its last loss; a loss function that drops its
// Variable cannot be dumped (ValueError saying so). Chainer's keep_graph_on_report is not
// needed: backward keeps the graph as long as the Variable lives.

#include <memory>
#include <string>
#include <vector>

#include "training/extension.h"

namespace rensa {
class FunctionHookScope;
class FunctionNode;
}  // namespace rensa

namespace rensa::training::extensions {

class DumpGraph : public Extension {
public:
    explicit DumpGraph(std::string root_name = "main/loss", std::string filename = "cg.dot");
    ~DumpGraph() override;

    // Starts recording the functions applied (see Note [DumpGraph root]) unless the graph
    // was already dumped (a resumed run).
    void initialize(Trainer& trainer) override;
    // Writes the DOT of build_computational_graph({root}) atomically and stops recording.
    // KeyError when the observation has no root_name; ValueError when it is not the array of
    // a live Variable; IOError when the file cannot be written.
    void operator()(Trainer& trainer) override;
    void finalize() override;
    std::string default_name() const override { return "dump_graph"; }
    // Fires at the first call only (Chainer's DumpGraph.trigger), i.e. after iteration 1.
    TriggerArg default_trigger() const override;
    // "_original_flag" and "_flag_called" as Chainer.
    void serialize(const serializers::Serializer& serializer) override;

    bool flag_called() const { return *flag_called_; }

private:
    class Recorder;
    void stop_recording();

    std::string root_name_;
    std::string filename_;
    std::shared_ptr<bool> flag_called_;  // shared with the default trigger
    bool original_flag_ = false;
    std::unique_ptr<Recorder> recorder_;
    std::unique_ptr<FunctionHookScope> scope_;
};

}  // namespace rensa::training::extensions
