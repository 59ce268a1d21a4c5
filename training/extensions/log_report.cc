#include "training/extensions/log_report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

namespace fs = std::filesystem;

// Chainer stores epoch and iteration as Python ints.
bool is_integer_key(const std::string& key) { return key == "epoch" || key == "iteration"; }

nlohmann::json value_to_json(const std::string& key, double value) {
    if (std::isnan(value)) return nullptr;
    if (is_integer_key(key) && std::abs(value) < 9.0e15 && value == std::trunc(value)) {
        return static_cast<int64_t>(value);
    }
    return value;
}

// The text Python's str() gives a log value inside a filename.
std::string value_to_text(const std::string& key, double value) {
    const nlohmann::json json = value_to_json(key, value);
    return json.is_null() ? "nan" : json.dump();
}

// Python's str.format(**entry) for plain "{name}" fields and "{{" / "}}".
std::string format_filename(const std::string& pattern, const LogEntry& entry) {
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
            out += c;
            ++i;
        } else if (c == '{') {
            const size_t close = pattern.find('}', i);
            RENSA_CHECK(close != std::string::npos, ValueError, "LogReport: unmatched '{' in filename '", pattern, "'");
            const std::string name = pattern.substr(i + 1, close - i - 1);
            const auto found = entry.find(name);
            RENSA_CHECK(found != entry.end(), KeyError, "LogReport: filename '", pattern, "' names '", name,
                        "', which the log entry does not hold");
            out += value_to_text(name, found->second);
            i = close;
        } else {
            RENSA_CHECK(c != '}', ValueError, "LogReport: single '}' in filename '", pattern, "'");
            out += c;
        }
    }
    return out;
}

[[noreturn]] void throw_io(const std::string& op, const std::string& what, const std::string& path, int error) {
    RENSA_THROW(IOError, op, ": cannot ", what, " '", path, "': ", std::strerror(error));
}

void write_all(int fd, const std::string& contents, const std::string& path, const std::string& op) {
    size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw_io(op, "write", path, errno);
        written += static_cast<size_t>(n);
    }
}

}  // namespace

namespace detail {

std::string log_to_json(const std::vector<LogEntry>& log, int indent) {
    nlohmann::json list = nlohmann::json::array();
    for (const LogEntry& entry : log) {
        nlohmann::json object = nlohmann::json::object();
        for (const auto& [key, value] : entry) object[key] = value_to_json(key, value);
        list.push_back(std::move(object));
    }
    return list.dump(indent);
}

std::vector<LogEntry> log_from_json(const std::string& text, const std::string& what) {
    nlohmann::json list;
    try {
        list = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& error) {
        RENSA_THROW(ValueError, what, ": not valid JSON (", error.what(), ")");
    }
    RENSA_CHECK(list.is_array(), ValueError, what, ": expected a JSON list of objects, got ", list.type_name());
    std::vector<LogEntry> log;
    for (const nlohmann::json& object : list) {
        RENSA_CHECK(object.is_object(), ValueError, what, ": expected objects in the list, got ", object.type_name());
        LogEntry entry;
        for (const auto& [key, value] : object.items()) {
            RENSA_CHECK(value.is_number() || value.is_null(), ValueError, what, ": the value of '", key, "' is a ",
                        value.type_name(), ", expected a number");
            entry[key] = value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
        }
        log.push_back(std::move(entry));
    }
    return log;
}

void write_file_atomically(const std::string& path, const std::string& contents, const std::string& op) {
    const fs::path target{path};
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path{"."};
    std::string temp_name{"."};  // hidden, and never mistaken for the log itself
    temp_name.append(target.filename().string()).append(".tmpXXXXXX");
    std::string temp = (folder / temp_name).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) throw_io(op, "create a temporary file for", path, errno);
    try {
        // mkstemp makes the file private (0600); a log is as readable as any other output.
        if (::fchmod(fd, 0644) != 0) throw_io(op, "set the mode of", temp, errno);
        write_all(fd, contents, temp, op);
        if (::fsync(fd) != 0) throw_io(op, "fsync", temp, errno);
    } catch (...) {
        ::close(fd);
        ::unlink(temp.c_str());
        throw;
    }
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        throw_io(op, "close", temp, error);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        throw_io(op, "rename the temporary file onto", path, error);
    }
    // The rename itself is durable once the folder is synced.
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

}  // namespace detail

LogReport::LogReport(LogReportOptions options) : options_{std::move(options)} {
    trigger_ = options_.trigger.empty() ? TriggerArg{1, "epoch"}.get() : options_.trigger.get();
}

void LogReport::operator()(Trainer& trainer) {
    if (options_.keys) {
        Observation selected;
        for (const std::string& key : *options_.keys) {
            const auto found = trainer.observation.find(key);
            if (found != trainer.observation.end()) selected.insert(*found);
        }
        summary_.add(selected);
    } else {
        summary_.add(trainer.observation);
    }
    // Chainer: the call_before_training call logs the untrained model as its own entry.
    if (!trainer.is_before_training() && !(*trigger_)(trainer)) return;

    LogEntry entry = make_entry(trainer);
    log_.push_back(entry);
    if (options_.filename) {
        const fs::path folder{trainer.out()};
        const fs::path path = folder / format_filename(*options_.filename, entry);
        if (path.has_parent_path()) fs::create_directories(path.parent_path());
        detail::write_file_atomically(path.string(), detail::log_to_json(log_));
    }
    summary_ = DictSummary{};
}

LogEntry LogReport::make_entry(Trainer& trainer) const {
    LogEntry entry;
    for (const auto& [key, mean] : summary_.compute_mean()) entry[key] = mean;
    const Updater& updater = trainer.updater();
    entry["epoch"] = static_cast<double>(updater.epoch());
    entry["iteration"] = static_cast<double>(updater.iteration());
    entry["elapsed_time"] = trainer.elapsed_time();
    if (options_.postprocess) options_.postprocess(entry);
    return entry;
}

void LogReport::serialize(const serializers::Serializer& serializer) {
    trigger_->serialize(serializer["_trigger"]);
    summary_.serialize(serializer["_summary"]);
    if (!serializer.is_loading()) {
        // Chainer stores json.dumps(log): one line, no indentation.
        std::string text = detail::log_to_json(log_, -1);
        serializer("_log", text);
        return;
    }
    const std::optional<std::string> text = serializer.read_string("_log");
    if (!text) return;
    std::vector<LogEntry> loaded = detail::log_from_json(*text, "LogReport: '" + serializer.key("_log") + "'");
    serializer.backend().defer([this, loaded = std::move(loaded)]() mutable { log_ = std::move(loaded); });
}

}  // namespace rensa::training::extensions
