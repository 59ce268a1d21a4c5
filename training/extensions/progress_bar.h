#pragma once
// chainer.training.extensions.ProgressBar: every `update_interval` iterations, a bar of
// the whole training, a bar of the current epoch, the counters, the speed and the
// estimated time to finish:
//
//        total [#########.........................................] 18.00%
//   this epoch [##########################........................] 52.00%
//          900 iter, 1 epoch / 5 epochs
//       512.34 iters/sec. Estimated time to finish: 0:00:08.031250.
//
// On a terminal the four lines are redrawn in place (ANSI erase and cursor-up codes, as
// Chainer); otherwise they are written as plain lines, without escape codes.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "training/extension.h"

namespace rensa::training::extensions {

struct ProgressBarOptions {
    // {length, "epoch" | "iteration"}; nullopt: the stop trigger's get_training_length().
    std::optional<std::pair<int64_t, std::string>> training_length = std::nullopt;
    int64_t update_interval = 100;  // draw when iteration % update_interval == 0
    int bar_length = 50;            // characters per bar
    std::ostream* out = &std::cout;
    // nullopt: detect (isatty of stdout / stderr when out is std::cout / std::cerr or
    // std::clog; any other stream is not a terminal).
    std::optional<bool> is_terminal = std::nullopt;
    // Seconds on a monotonic clock, for the speed; null: std::chrono::steady_clock.
    std::function<double()> clock = nullptr;
};

class ProgressBar : public Extension {
public:
    // ValueError for update_interval < 1, bar_length < 0, a null out, a length < 1 or a
    // unit other than "epoch" / "iteration".
    explicit ProgressBar(ProgressBarOptions options = {});

    // Draws when the iteration is a multiple of update_interval. ValueError when no
    // training_length was given and the stop trigger has no fixed length.
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "ProgressBar"; }
    // On a terminal, erases the bar.
    void finalize() override;

    // The four lines (each ending in '\n') for the given counters; updates the speed
    // estimate (what operator() draws).
    [[nodiscard]] std::vector<std::string> get_lines(int64_t iteration, int64_t epoch, double epoch_detail);
    bool is_terminal() const { return is_terminal_; }

private:
    // {iterations/s, epochs/s} over the last 100 draws (inf when no time passed).
    std::pair<double, double> update_speed(int64_t iteration, double epoch_detail);
    double now() const;

    ProgressBarOptions options_;
    bool is_terminal_;
    std::deque<std::tuple<int64_t, double, double>> recent_timing_;  // iteration, epoch_detail, seconds
};

namespace detail {

// True when `out` is std::cout / std::cerr / std::clog and that file descriptor is a tty.
bool is_terminal_stream(const std::ostream* out);
// Python's str(datetime.timedelta(seconds=s)): "0:00:08.031250", "1 day, 2:03:04".
std::string format_timedelta(double seconds);
// Python's '{:6.2%}'.format(rate): "52.00%", " 0.00%".
std::string format_percent(double rate);

}  // namespace detail

}  // namespace rensa::training::extensions
