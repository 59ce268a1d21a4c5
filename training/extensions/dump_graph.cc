#include "training/extensions/dump_graph.h"

#include <filesystem>
#include <utility>

#include "autograd/computational_graph.h"
#include "autograd/function_hook.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "links/model/classifier.h"
#include "training/detail/names.h"
#include "training/extensions/log_report.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

// The same elements: what a reported Variable's array shares with the Variable.
bool aliases(const Array& a, const Array& b) {
    return a.defined() && b.defined() && a.storage() == b.storage() && a.offset() == b.offset() &&
           a.shape() == b.shape() && a.dtype() == b.dtype();
}

// Fires at its first call only; the flag is the extension's "_flag_called".
class FirstCallTrigger final : public Trigger {
public:
    explicit FirstCallTrigger(std::shared_ptr<bool> called) : called_{std::move(called)} {}
    bool operator()(Trainer& /*trainer*/) override {
        if (*called_) return false;
        *called_ = true;
        return true;
    }

private:
    std::shared_ptr<bool> called_;
};

// See Note [DumpGraph root]: the Classifier fallback.
Variable find_in_classifiers(Trainer& trainer, const Array& observed) {
    for (const auto& [name, optimizer] : trainer.updater().get_all_optimizers()) {
        if (!optimizer || !optimizer->target_ptr()) continue;
        for (const auto& [path, link] : optimizer->target_ptr()->namedlinks()) {
            const auto* classifier = dynamic_cast<const links::Classifier*>(link);
            if (classifier == nullptr) continue;
            for (const Variable* v : {&classifier->loss, &classifier->y, &classifier->accuracy}) {
                if (v->defined() && aliases(v->array(), observed)) return *v;
            }
        }
    }
    return {};
}

}  // namespace

// Records (weakly) the functions applied while the updater is at one iteration; a new
// iteration starts a new list, so memory stays bounded by one iteration's graph.
class DumpGraph::Recorder final : public FunctionHook {
public:
    explicit Recorder(const Updater& updater) : updater_{updater}, iteration_{updater.iteration()} {}
    std::string name() const override { return "DumpGraph"; }
    void forward_postprocess(const FunctionNode& function, const std::vector<Array>& /*in_data*/) override {
        if (updater_.iteration() != iteration_) {
            functions_.clear();
            iteration_ = updater_.iteration();
        }
        functions_.push_back(function.weak_from_this());
    }
    // The live output, among the recorded functions' outputs, whose array is `observed`.
    Variable find(const Array& observed) const {
        for (auto it = functions_.rbegin(); it != functions_.rend(); ++it) {
            const std::shared_ptr<const FunctionNode> function = it->lock();
            if (!function) continue;
            for (const auto& out : function->outputs()) {
                const std::shared_ptr<VariableNode> node = out.lock();
                if (!node) continue;
                const Variable v = node->get_variable_or_none();
                if (v.defined() && aliases(v.array(), observed)) return v;
            }
        }
        return {};
    }

private:
    const Updater& updater_;
    int64_t iteration_;
    std::vector<std::weak_ptr<const FunctionNode>> functions_;
};

DumpGraph::DumpGraph(std::string root_name, std::string filename)
    : root_name_{std::move(root_name)}, filename_{std::move(filename)}, flag_called_{std::make_shared<bool>(false)} {
    RENSA_CHECK(!filename_.empty(), ValueError, "DumpGraph: the filename is empty");
}

DumpGraph::~DumpGraph() { stop_recording(); }

TriggerArg DumpGraph::default_trigger() const { return {std::make_shared<FirstCallTrigger>(flag_called_)}; }

void DumpGraph::initialize(Trainer& trainer) {
    if (*flag_called_ || scope_) return;
    recorder_ = std::make_unique<Recorder>(trainer.updater());
    scope_ = std::make_unique<FunctionHookScope>(*recorder_);
}

void DumpGraph::stop_recording() {
    scope_.reset();  // unregisters the hook before the hook dies
    recorder_.reset();
}

void DumpGraph::finalize() { stop_recording(); }

void DumpGraph::operator()(Trainer& trainer) {
    // Stop recording whatever happens (Chainer restores keep_graph_on_report in a finally).
    const std::unique_ptr<Recorder> recorder = std::move(recorder_);
    const std::unique_ptr<FunctionHookScope> scope = std::move(scope_);

    const auto it = trainer.observation.find(root_name_);
    RENSA_CHECK(it != trainer.observation.end(), KeyError, "DumpGraph: no observation '", root_name_,
                "' (observed: ", training::detail::quoted_names(trainer.observation), ")");
    Variable root = recorder ? recorder->find(it->second) : Variable{};
    if (!root.defined()) root = find_in_classifiers(trainer, it->second);
    RENSA_CHECK(root.defined(), ValueError, "DumpGraph: the observation '", root_name_,
                "' is not the array of a live Variable; report the output of a differentiable function and keep "
                "its Variable alive until the extensions run (links::Classifier keeps its loss)");

    const std::string dot = build_computational_graph({root}).dump();
    std::error_code ignored;  // a folder that cannot be made fails in the write, with an IOError
    std::filesystem::create_directories(trainer.out(), ignored);
    detail::write_file_atomically((std::filesystem::path(trainer.out()) / filename_).string(), dot, "DumpGraph");
}

void DumpGraph::serialize(const serializers::Serializer& serializer) {
    serializer("_original_flag", original_flag_);
    serializer("_flag_called", *flag_called_);
}

}  // namespace rensa::training::extensions
