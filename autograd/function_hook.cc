#include "autograd/function_hook.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "autograd/function_node.h"
#include "core/backend.h"

namespace rensa {

namespace {
std::vector<FunctionHook*>& hooks() {
    thread_local std::vector<FunctionHook*> registered;
    return registered;
}

// Waits for queued device work, so a timer measures it (no-op on the native backend).
void synchronize(const std::vector<Array>& data) {
    for (const Array& a : data) {
        if (a.defined() && a.device().kind != DeviceKind::kNative) {
            global_context().backend(a.device()).synchronize(a.device().index);
            return;
        }
    }
}

void print_arrays(std::ostream& os, const char* title, const std::vector<Array>& data) {
    os << title << '\n';
    for (const Array& a : data) {
        if (a.defined()) {
            os << "  " << a.shape() << ", " << a.dtype() << '\n';
        } else {
            os << "  None\n";
        }
    }
}
}  // namespace

namespace detail {
const std::vector<FunctionHook*>& function_hooks() { return hooks(); }
}  // namespace detail

FunctionHookScope::FunctionHookScope(FunctionHook& hook) : hook_{&hook} {
    hooks().push_back(hook_);
    hook_->added();
}

FunctionHookScope::~FunctionHookScope() {
    std::vector<FunctionHook*>& registered = hooks();
    // Scopes normally end in reverse order; remove the last registration of this hook.
    const auto it = std::find(registered.rbegin(), registered.rend(), hook_);
    if (it != registered.rend()) registered.erase(std::next(it).base());
    hook_->deleted();
}

// --- TimerHook ---

void TimerHook::start(const std::vector<Array>& data) {
    synchronize(data);
    starts_.push_back(std::chrono::steady_clock::now());
}

void TimerHook::stop(const FunctionNode& function, bool backward, const std::vector<Array>& data) {
    synchronize(data);
    const auto end = std::chrono::steady_clock::now();
    if (starts_.empty()) return;  // registered between pre- and postprocess
    const std::chrono::duration<double> elapsed = end - starts_.back();
    starts_.pop_back();
    history_.push_back({function.label(), backward, elapsed.count()});
}

void TimerHook::forward_preprocess(const FunctionNode&, const std::vector<Array>& in_data) { start(in_data); }
void TimerHook::forward_postprocess(const FunctionNode& function, const std::vector<Array>& in_data) {
    stop(function, false, in_data);
}
void TimerHook::backward_preprocess(const FunctionNode&, const std::vector<Array>&,
                                    const std::vector<Array>& grad_outputs) {
    start(grad_outputs);
}
void TimerHook::backward_postprocess(const FunctionNode& function, const std::vector<Array>&,
                                     const std::vector<Array>& grad_outputs) {
    stop(function, true, grad_outputs);
}

double TimerHook::total_time() const {
    double total = 0;
    for (const Record& r : history_) total += r.seconds;
    return total;
}

std::map<std::string, TimerHook::Entry> TimerHook::summary() const {
    std::map<std::string, Entry> table;
    for (const Record& r : history_) {
        Entry& e = table[r.function];
        e.elapsed_time += r.seconds;
        ++e.occurrence;
    }
    return table;
}

void TimerHook::print_report(std::ostream& os) const {
    os << std::left << std::setw(24) << "FunctionName" << std::setw(16) << "ElapsedTime"
       << "Occurrence\n";
    for (const auto& [label, entry] : summary()) {
        std::ostringstream time;
        time << std::fixed << std::setprecision(3) << entry.elapsed_time * 1e3 << "ms";
        os << std::left << std::setw(24) << label << std::setw(16) << time.str() << entry.occurrence << '\n';
    }
}

// --- PrintHook ---

void PrintHook::forward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data) {
    *os_ << "function\t" << function.label() << " (forward)\n";
    print_arrays(*os_, "input data", in_data);
}

void PrintHook::backward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data,
                                    const std::vector<Array>& grad_outputs) {
    *os_ << "function\t" << function.label() << " (backward)\n";
    print_arrays(*os_, "input data", in_data);
    print_arrays(*os_, "output gradient", grad_outputs);
}

}  // namespace rensa
