#pragma once
// Chainer's reporter: code deep inside a model (a Classifier's loss, an evaluator's
// accuracy) reports named values, and whoever opened the current report scope (the
// trainer for one iteration, an evaluator for one batch) collects them.
//
// Values are Arrays (usually 0-d); a Variable is reported as its array. Keys reported
// with an observer get the observer's registered name as prefix: a Classifier
// registered as "main" reports "main/loss". The current reporter is per thread.

#include <map>
#include <string>
#include <vector>

#include "core/array.h"

namespace rensa {

// name -> value, ordered by name (so every rank walks them in the same order).
using Observation = std::map<std::string, Array>;

class Reporter {
public:
    // Registers `observer` (any object, by address) under `name`; its reports get "name/".
    void add_observer(const std::string& name, const void* observer);
    // Registers each (name, observer) pair under "prefix" + name.
    void add_observers(const std::string& prefix, const std::vector<std::pair<std::string, const void*>>& observers);
    // The registered name of `observer`; throws KeyError when it is not registered.
    const std::string& observer_name(const void* observer) const;

    // Records the values into the current observation (see ReportScope). With an observer,
    // keys become "<observer name>/<key>" and an unregistered observer throws KeyError.
    // Without an open observation the values are dropped, as in Chainer.
    void report(const Observation& values, const void* observer = nullptr);

    // The observation being filled, or null outside a scope.
    Observation* observation() const { return observation_; }

private:
    friend class ReporterScope;
    friend class ReportScope;
    std::map<const void*, std::string> observer_names_;
    Observation* observation_ = nullptr;
};

// Makes `reporter` the calling thread's current reporter and `observation` the map its
// reports go to, for the scope's lifetime (Chainer's `with reporter.scope(observation)`).
class ReporterScope {
public:
    ReporterScope(Reporter& reporter, Observation& observation);
    ~ReporterScope();
    ReporterScope(const ReporterScope&) = delete;
    ReporterScope& operator=(const ReporterScope&) = delete;

private:
    Reporter* previous_reporter_;
    Observation* previous_observation_;
    Reporter& reporter_;
};

// The calling thread's current reporter, or null when no ReporterScope is open.
Reporter* get_current_reporter();

// chainer.report: reports to the current reporter; does nothing when there is none.
void report(const Observation& values, const void* observer = nullptr);

// chainer.report_scope: collects what is reported in the scope into `observation`
// as well, through the current reporter (which must exist: ValueError otherwise).
class ReportScope {
public:
    explicit ReportScope(Observation& observation);
    ~ReportScope();
    ReportScope(const ReportScope&) = delete;
    ReportScope& operator=(const ReportScope&) = delete;

private:
    Reporter& reporter_;
    Observation* previous_;
};

}  // namespace rensa
