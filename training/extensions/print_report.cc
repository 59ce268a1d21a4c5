#include "training/extensions/print_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "training/extensions/progress_bar.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

// Python's '{:<{width}g}'.format(value).
std::string format_value(double value, size_t width) {
    char text[64];
    if (std::isnan(value)) {
        std::snprintf(text, sizeof text, "nan");  // C may print "-nan"; Python never does
    } else {
        std::snprintf(text, sizeof text, "%g", value);
    }
    std::string out{text};
    if (out.size() < width) out.append(width - out.size(), ' ');
    return out;
}

// Chainer's order for inferred entries: epoch and iteration first, elapsed_time last.
std::vector<std::string> infer_entries(const LogEntry& entry) {
    std::vector<std::string> entries;
    for (const char* head : {"epoch", "iteration"}) {
        if (entry.count(head) != 0) entries.emplace_back(head);
    }
    for (const auto& [key, value] : entry) {
        if (key != "epoch" && key != "iteration" && key != "elapsed_time") entries.push_back(key);
    }
    if (entry.count("elapsed_time") != 0) entries.emplace_back("elapsed_time");
    return entries;
}

}  // namespace

PrintReport::PrintReport(std::vector<std::string> entries, PrintReportOptions options) : options_{std::move(options)} {
    RENSA_CHECK(options_.out != nullptr, ValueError, "PrintReport: out is null");
    const auto* own = std::get_if<std::shared_ptr<LogReport>>(&options_.log_report);
    RENSA_CHECK(own == nullptr || *own != nullptr, ValueError, "PrintReport: log_report is a null LogReport");
    is_terminal_ = options_.is_terminal.value_or(detail::is_terminal_stream(options_.out));
    set_entries(std::move(entries));
}

void PrintReport::set_entries(std::vector<std::string> entries) {
    entries_ = std::move(entries);
    widths_.clear();
    for (const std::string& entry : entries_) widths_.push_back(std::max<size_t>(10, entry.size()));
}

void PrintReport::operator()(Trainer& trainer) {
    std::ostream& out = *options_.out;
    const LogReport* log_report = nullptr;
    if (const auto* name = std::get_if<std::string>(&options_.log_report)) {
        log_report = &trainer.get_extension<LogReport>(*name);
    } else {
        LogReport& own = *std::get<std::shared_ptr<LogReport>>(options_.log_report);
        own(trainer);  // our own LogReport: update it first, as Chainer
        log_report = &own;
    }
    const std::vector<LogEntry>& log = log_report->log();
    if (entries_.empty() && log.size() > log_len_) set_entries(infer_entries(log[log_len_]));

    if (!header_printed_ && !entries_.empty()) {
        std::string header;
        for (size_t i = 0; i < entries_.size(); ++i) {
            if (i > 0) header += "  ";
            header += entries_[i];
            header.append(widths_[i] - entries_[i].size(), ' ');
        }
        out << header << '\n';
        header_printed_ = true;
    }
    for (; log_len_ < log.size(); ++log_len_) {
        if (is_terminal_) out << "\033[J";  // clear what a ProgressBar left below the cursor
        print_entry(log[log_len_]);
    }
    out.flush();
}

void PrintReport::print_entry(const LogEntry& entry) const {
    std::string row;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const auto found = entry.find(entries_[i]);
        if (found != entry.end()) {
            row += format_value(found->second, widths_[i]);
            row += "  ";
        } else {
            row.append(widths_[i] + 2, ' ');
        }
    }
    *options_.out << row << '\n';
}

void PrintReport::serialize(const serializers::Serializer& serializer) {
    if (const auto* own = std::get_if<std::shared_ptr<LogReport>>(&options_.log_report)) {
        (*own)->serialize(serializer["_log_report"]);
    }
}

}  // namespace rensa::training::extensions
