#pragma once
// Function hooks (Chainer's FunctionHook): callbacks run around the forward and the
// backward of every FunctionNode applied on this thread while the hook is registered
// by a FunctionHookScope. Hooks run in registration order. TimerHook and PrintHook
// are the stock ones.

#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/array.h"

namespace rensa {

class FunctionNode;

class FunctionHook {
public:
    virtual ~FunctionHook() = default;
    virtual std::string name() const { return "FunctionHook"; }
    virtual void added() {}    // when a scope registers the hook
    virtual void deleted() {}  // when that scope ends
    // `in_data` are the input arrays.
    virtual void forward_preprocess(const FunctionNode& /*function*/, const std::vector<Array>& /*in_data*/) {}
    virtual void forward_postprocess(const FunctionNode& /*function*/, const std::vector<Array>& /*in_data*/) {}
    // Right after forward_postprocess, with the arrays forward returned (before they are
    // wrapped in Variables or checked: an output may be undefined here when forward is
    // wrong, and the apply throws after the hooks). Called with or without backprop, for
    // inputs that require grad or not. See Note [ONNX recording].
    virtual void forward_outputs(const FunctionNode& /*function*/, const std::vector<Array>& /*in_data*/,
                                 const std::vector<Array>& /*out_data*/) {}
    // `in_data` holds the retained inputs (undefined for the others); `grad_outputs`
    // the outputs' grads (undefined where an output got none).
    virtual void backward_preprocess(const FunctionNode& /*function*/, const std::vector<Array>& /*in_data*/,
                                     const std::vector<Array>& /*grad_outputs*/) {}
    virtual void backward_postprocess(const FunctionNode& /*function*/, const std::vector<Array>& /*in_data*/,
                                      const std::vector<Array>& /*grad_outputs*/) {}
};

// Registers `hook` on the calling thread for the scope's lifetime (Chainer's `with hook:`).
// The hook must outlive the scope.
class FunctionHookScope {
public:
    explicit FunctionHookScope(FunctionHook& hook);
    ~FunctionHookScope();
    FunctionHookScope(const FunctionHookScope&) = delete;
    FunctionHookScope& operator=(const FunctionHookScope&) = delete;

private:
    FunctionHook* hook_;
};

// Measures the wall time of each forward and backward call (synchronising the device
// of the data first, so GPU work is included).
class TimerHook : public FunctionHook {
public:
    struct Record {
        std::string function;  // label
        bool backward;
        double seconds;
    };
    struct Entry {
        double elapsed_time = 0;  // seconds
        int64_t occurrence = 0;
    };

    std::string name() const override { return "TimerHook"; }
    void forward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data) override;
    void forward_postprocess(const FunctionNode& function, const std::vector<Array>& in_data) override;
    void backward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data,
                             const std::vector<Array>& grad_outputs) override;
    void backward_postprocess(const FunctionNode& function, const std::vector<Array>& in_data,
                              const std::vector<Array>& grad_outputs) override;

    // One record per call, in call order.
    const std::vector<Record>& call_history() const { return history_; }
    double total_time() const;
    // Per-label totals, forward and backward together.
    std::map<std::string, Entry> summary() const;
    // A table "FunctionName  ElapsedTime  Occurrence", one row per label.
    void print_report(std::ostream& os) const;

private:
    void start(const std::vector<Array>& data);
    void stop(const FunctionNode& function, bool backward, const std::vector<Array>& data);

    std::vector<std::chrono::steady_clock::time_point> starts_;  // a stack: applies may nest
    std::vector<Record> history_;
};

// Prints each call's function label and the shapes and dtypes of its data.
class PrintHook : public FunctionHook {
public:
    explicit PrintHook(std::ostream& os) : os_{&os} {}
    std::string name() const override { return "PrintHook"; }
    void forward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data) override;
    void backward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data,
                             const std::vector<Array>& grad_outputs) override;

private:
    std::ostream* os_;
};

// Note [ONNX recording]: rensa.onnx.export (python/rensa/onnx/) learns the graph of a model
// from a hook (forward_outputs, bound as rensa._core._record_functions in
// python/src/autograd/recorder.cc), not by walking the backward graph from the outputs:
// export runs in no_backprop_mode, where apply links no graph at all, and even with backprop
// a node none of whose inputs requires grad is not linked (an integer input's embed_id, a
// model without parameters), so the backward graph may be absent or partial. The hook sees
// every applied node in order with its input and output arrays and its attributes()
// (FunctionNode's non-array parameters by Chainer's names); the recorder keeps those arrays
// alive until the run ends, so a memory address names one array during the recording, and
// the exporter tells which input is an earlier output, a graph input, a parameter, a
// persistent or a constant the model made, by (address, shape, strides, dtype).
namespace detail {
// The hooks registered on the calling thread, in registration order.
const std::vector<FunctionHook*>& function_hooks();
}  // namespace detail

}  // namespace rensa
