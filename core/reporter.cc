#include "core/reporter.h"

#include "core/error.h"

namespace rensa {
namespace {
thread_local Reporter* t_current_reporter = nullptr;
}  // namespace

void Reporter::add_observer(const std::string& name, const void* observer) { observer_names_[observer] = name; }

void Reporter::add_observers(const std::string& prefix,
                             const std::vector<std::pair<std::string, const void*>>& observers) {
    for (const auto& [name, observer] : observers) add_observer(prefix + name, observer);
}

const std::string& Reporter::observer_name(const void* observer) const {
    const auto it = observer_names_.find(observer);
    RENSA_CHECK(it != observer_names_.end(), KeyError,
                "Reporter.report: the observer is not registered (call add_observer first)");
    return it->second;
}

void Reporter::report(const Observation& values, const void* observer) {
    if (observation_ == nullptr) return;
    const std::string prefix = observer != nullptr ? observer_name(observer) + "/" : std::string{};
    for (const auto& [key, value] : values) {
        RENSA_CHECK(value.defined(), ValueError, "Reporter.report: the value of '", prefix, key, "' is undefined");
        (*observation_)[prefix + key] = value;
    }
}

ReporterScope::ReporterScope(Reporter& reporter, Observation& observation)
    : previous_reporter_{t_current_reporter}, previous_observation_{reporter.observation_}, reporter_{reporter} {
    t_current_reporter = &reporter;
    reporter.observation_ = &observation;
}

ReporterScope::~ReporterScope() {
    reporter_.observation_ = previous_observation_;
    t_current_reporter = previous_reporter_;
}

Reporter* get_current_reporter() { return t_current_reporter; }

void report(const Observation& values, const void* observer) {
    if (Reporter* reporter = get_current_reporter()) reporter->report(values, observer);
}

namespace {
Reporter& require_current_reporter() {
    Reporter* reporter = get_current_reporter();
    RENSA_CHECK(reporter != nullptr, ValueError, "report_scope: no reporter is current (open a ReporterScope first)");
    return *reporter;
}
}  // namespace

ReportScope::ReportScope(Observation& observation)
    : reporter_{require_current_reporter()}, previous_{reporter_.observation()} {
    // Reports go to the inner observation; the destructor copies them out to the outer one.
    reporter_.observation_ = &observation;
}

ReportScope::~ReportScope() {
    Observation* inner = reporter_.observation_;
    reporter_.observation_ = previous_;
    if (previous_ != nullptr && inner != nullptr) {
        for (const auto& [key, value] : *inner) (*previous_)[key] = value;
    }
}

}  // namespace rensa
