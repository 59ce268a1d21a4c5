#pragma once
// chainer.training.extensions.PrintReport: prints chosen entries of a LogReport's log
// as aligned columns, the header once, then one row per new log entry:
//
//   epoch       main/loss   validation/main/loss  elapsed_time
//   1           0.191611    0.0980593             3.29215
//
// Each column is max(10, len(entry)) wide plus two spaces; numbers use Python's '{:<Ng}'
// (six significant digits) and a value missing from an entry prints as blanks.

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "training/extension.h"
#include "training/extensions/log_report.h"

namespace rensa::training::extensions {

struct PrintReportOptions {
    // The name of a LogReport registered to the trainer, or a LogReport of this extension's
    // own (called by it at each call and serialized under "_log_report").
    std::variant<std::string, std::shared_ptr<LogReport>> log_report = std::string{"LogReport"};
    std::ostream* out = &std::cout;
    // nullopt: detect as ProgressBar does. On a terminal each row starts with the ANSI
    // erase code (so it overwrites a ProgressBar drawn below the cursor), as Chainer.
    std::optional<bool> is_terminal = std::nullopt;
};

class PrintReport : public Extension {
public:
    // `entries`: the keys to print, in order; empty: inferred from the first log entry
    // printed ("epoch", "iteration", the other keys sorted, "elapsed_time"). ValueError
    // for a null out or a null LogReport.
    explicit PrintReport(std::vector<std::string> entries, PrintReportOptions options = {});

    // Prints the header at the first call, then the log entries not printed yet.
    // KeyError (from the trainer) when the named LogReport is not registered.
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "PrintReport"; }
    void serialize(const serializers::Serializer& serializer) override;

    const std::vector<std::string>& entries() const { return entries_; }

private:
    void set_entries(std::vector<std::string> entries);
    void print_entry(const LogEntry& entry) const;

    std::vector<std::string> entries_;
    std::vector<size_t> widths_;
    PrintReportOptions options_;
    bool is_terminal_;
    bool header_printed_ = false;
    size_t log_len_ = 0;  // entries printed so far
};

}  // namespace rensa::training::extensions
