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

namespace detail {
// The hooks registered on the calling thread, in registration order.
const std::vector<FunctionHook*>& function_hooks();
}  // namespace detail

}  // namespace rensa
