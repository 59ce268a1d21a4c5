#pragma once
// chainer.training.extensions.LogReport: accumulates the trainer's observations in a
// DictSummary at every call and, when its own trigger fires, appends the means (plus
// "epoch", "iteration" and "elapsed_time") to the log and rewrites `<out>/<filename>` as
// Chainer's JSON list of dictionaries (json.dump(indent=4)), atomically.
//
//   trainer.extend(std::make_shared<extensions::LogReport>());
//   trainer.extend(std::make_shared<extensions::LogReport>(
//       extensions::LogReportOptions{.keys = std::vector<std::string>{"main/loss"}, .trigger = {100, "iteration"}}));

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "training/extension.h"
#include "training/summary.h"
#include "training/trigger.h"

namespace rensa::training::extensions {

// One log entry: key -> value. "epoch" and "iteration" hold whole numbers (written as
// JSON integers); a NaN is written as null and read back as NaN.
using LogEntry = std::map<std::string, double>;

struct LogReportOptions {
    std::optional<std::vector<std::string>> keys = std::nullopt;  // nullopt: every reported key
    TriggerArg trigger = {1, "epoch"};                            // when an entry is made; empty: {1, "epoch"}
    std::function<void(LogEntry&)> postprocess = nullptr;         // may edit each entry before it is logged
    // The file under trainer.out(); "{name}" fields are replaced by the entry's values as
    // Python's str.format does ("log_{iteration}"). nullopt: no file.
    std::optional<std::string> filename = "log";
};

class LogReport : public Extension {
public:
    explicit LogReport(LogReportOptions options = {});

    // Adds trainer.observation to the summary; when the trigger fires, appends an entry and
    // writes the file (a temporary file in the same folder, fsynced, then renamed: IOError
    // when that fails, the previous file stays intact). KeyError for an unknown "{name}".
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "LogReport"; }

    // The entries made so far.
    const std::vector<LogEntry>& log() const { return log_; }

    // As Chainer: the trigger's state under "_trigger/", the summary under "_summary/", and
    // the log as a JSON string under "_log". Loading a malformed "_log" throws ValueError and
    // changes nothing.
    void serialize(const serializers::Serializer& serializer) override;

private:
    // The entry for the current summary (means, counters, postprocess).
    LogEntry make_entry(Trainer& trainer) const;

    LogReportOptions options_;
    TriggerPtr trigger_;
    DictSummary summary_;
    std::vector<LogEntry> log_;
};

namespace detail {

// The log as Chainer writes it: a JSON list of objects, keys sorted, indent 4.
std::string log_to_json(const std::vector<LogEntry>& log, int indent = 4);
// Parses what log_to_json wrote (ValueError naming `what` for anything else).
std::vector<LogEntry> log_from_json(const std::string& text, const std::string& what);
// Writes `contents` to `path` atomically: a temporary file beside it, fsync, rename, and
// an fsync of the folder. IOError naming `op` (the extension writing) and the path when a
// step fails (the temporary file is removed; an existing `path` is left as it was).
void write_file_atomically(const std::string& path, const std::string& contents, const std::string& op = "LogReport");

}  // namespace detail

}  // namespace rensa::training::extensions
