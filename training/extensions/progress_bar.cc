#include "training/extensions/progress_bar.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "training/trainer.h"

namespace rensa::training::extensions {

namespace {

constexpr size_t kSpeedWindow = 100;  // Chainer's deque(maxlen=100)

std::string bar_line(const char* label, double rate, int bar_length) {
    const int marks = static_cast<int>(rate * bar_length);
    std::string line{label};
    line.append(" [").append(static_cast<size_t>(marks), '#');
    line.append(static_cast<size_t>(bar_length - marks), '.');
    line.append("] ").append(detail::format_percent(rate)).append("\n");
    return line;
}

void check_training_length(const std::pair<int64_t, std::string>& length) {
    RENSA_CHECK(length.first >= 1, ValueError, "ProgressBar: training_length must be at least 1, got ", length.first);
    RENSA_CHECK(length.second == "epoch" || length.second == "iteration", ValueError,
                "ProgressBar: the unit of training_length must be 'epoch' or 'iteration', got '", length.second, "'");
}

}  // namespace

namespace detail {

bool is_terminal_stream(const std::ostream* out) {
    if (out == &std::cout) return ::isatty(STDOUT_FILENO) == 1;
    if (out == &std::cerr || out == &std::clog) return ::isatty(STDERR_FILENO) == 1;
    return false;
}

std::string format_timedelta(double seconds) {
    // Beyond timedelta's range (or no estimate at all) there is nothing sensible to print.
    if (!std::isfinite(seconds) || seconds < 0 || seconds >= 86400.0 * 999999999.0) return "unknown";
    const auto total_us = static_cast<int64_t>(std::nearbyint(seconds * 1e6));  // round half even, as timedelta
    const int64_t days = total_us / 86400000000LL;
    int64_t rest = total_us % 86400000000LL;
    const int64_t us = rest % 1000000;
    rest /= 1000000;
    char text[64];
    std::string out;
    if (days != 0) out = std::to_string(days) + (days == 1 ? " day, " : " days, ");
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", static_cast<long long>(rest / 3600),
                  static_cast<long long>(rest / 60 % 60), static_cast<long long>(rest % 60));
    out += text;
    if (us != 0) {
        std::snprintf(text, sizeof text, ".%06lld", static_cast<long long>(us));
        out += text;
    }
    return out;
}

std::string format_percent(double rate) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2f%%", rate * 100.0);
    std::string out{text};
    if (out.size() < 6) out.insert(0, 6 - out.size(), ' ');
    return out;
}

}  // namespace detail

ProgressBar::ProgressBar(ProgressBarOptions options) : options_{std::move(options)} {
    RENSA_CHECK(options_.update_interval >= 1, ValueError, "ProgressBar: update_interval must be at least 1, got ",
                options_.update_interval);
    RENSA_CHECK(options_.bar_length >= 0, ValueError, "ProgressBar: bar_length must not be negative, got ",
                options_.bar_length);
    RENSA_CHECK(options_.out != nullptr, ValueError, "ProgressBar: out is null");
    if (options_.training_length) check_training_length(*options_.training_length);
    is_terminal_ = options_.is_terminal.value_or(detail::is_terminal_stream(options_.out));
}

void ProgressBar::operator()(Trainer& trainer) {
    const Updater& updater = trainer.updater();
    if (updater.iteration() % options_.update_interval != 0) return;
    if (!options_.training_length) {
        const TriggerPtr& stop = trainer.stop_trigger();
        auto length = stop ? stop->get_training_length() : std::nullopt;
        RENSA_CHECK(length.has_value(), ValueError,
                    "ProgressBar: cannot retrieve the training length from the stop trigger (it has no fixed "
                    "length); pass training_length");
        check_training_length(*length);
        options_.training_length = std::move(length);
    }
    const std::vector<std::string> lines = get_lines(updater.iteration(), updater.epoch(), updater.epoch_detail());
    std::ostream& out = *options_.out;
    if (is_terminal_) out << "\033[J";  // erase what the previous draw left below the cursor
    for (const std::string& line : lines) out << line;
    if (is_terminal_) out << "\033[" << lines.size() << "A";  // back to the head of the bar
    out.flush();
}

void ProgressBar::finalize() {
    if (is_terminal_) *options_.out << "\033[J";
    options_.out->flush();
}

std::vector<std::string> ProgressBar::get_lines(int64_t iteration, int64_t epoch, double epoch_detail) {
    RENSA_CHECK(options_.training_length.has_value(), ValueError,
                "ProgressBar.get_lines: the training length is not known yet");
    const auto& [length, unit] = *options_.training_length;
    const bool by_iteration = unit == "iteration";
    const double rate = std::min(by_iteration ? static_cast<double>(iteration) / length : epoch_detail / length, 1.0);
    const double epoch_rate = epoch_detail - std::floor(epoch_detail);

    std::vector<std::string> lines;
    lines.push_back(bar_line("     total", rate, options_.bar_length));
    lines.push_back(bar_line("this epoch", epoch_rate, options_.bar_length));

    char text[256];
    std::snprintf(text, sizeof text, "%10lld iter, %lld epoch / %lld %ss\n", static_cast<long long>(iteration),
                  static_cast<long long>(epoch), static_cast<long long>(length), unit.c_str());
    lines.emplace_back(text);

    const auto [speed_t, speed_e] = update_speed(iteration, epoch_detail);
    const double remaining = by_iteration ? static_cast<double>(length - iteration) / speed_t
                                          : (static_cast<double>(length) - epoch_detail) / speed_e;
    std::snprintf(text, sizeof text, "%10.5g iters/sec. Estimated time to finish: %s.\n", speed_t,
                  detail::format_timedelta(std::max(remaining, 0.0)).c_str());
    lines.emplace_back(text);
    return lines;
}

std::pair<double, double> ProgressBar::update_speed(int64_t iteration, double epoch_detail) {
    const double now_s = now();
    recent_timing_.emplace_back(iteration, epoch_detail, now_s);
    if (recent_timing_.size() > kSpeedWindow) recent_timing_.pop_front();
    const auto& [old_t, old_e, old_s] = recent_timing_.front();
    const double span = now_s - old_s;
    if (span == 0) return {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    return {static_cast<double>(iteration - old_t) / span, (epoch_detail - old_e) / span};
}

double ProgressBar::now() const {
    if (options_.clock) return options_.clock();
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace rensa::training::extensions
