#include <catch2/catch.hpp>
#include <limits>
#include <sstream>

#include "tests/training/training_testing.h"
#include "training/extensions/progress_bar.h"
#include "training/trainer.h"

namespace {

using namespace rensa;
using rensa::testing::FakeUpdater;
using rensa::testing::TempDir;
using training::Trainer;
using training::extensions::ProgressBar;
using training::extensions::ProgressBarOptions;

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// Fires after `n` iterations and has no fixed length (like a MinValueTrigger).
class AfterN : public training::Trigger {
public:
    explicit AfterN(int64_t n) : n_{n} {}
    bool operator()(Trainer& trainer) override { return trainer.updater().iteration() >= n_; }

private:
    int64_t n_;
};

}  // namespace

TEST_CASE("ProgressBar: get_lines gives the four lines of Chainer with the speed and the estimate",
          "[training][reporting]") {
    double now = 100.0;
    ProgressBar bar{{.training_length = std::pair<int64_t, std::string>{10, "iteration"},
                     .bar_length = 10,
                     .clock = [&now] { return now; }}};
    const auto first = bar.get_lines(2, 0, 0.5);
    REQUIRE(first.size() == 4);
    CHECK(first[0] == "     total [##........] 20.00%\n");
    CHECK(first[1] == "this epoch [#####.....] 50.00%\n");
    CHECK(first[2] == "         2 iter, 0 epoch / 10 iterations\n");
    CHECK(first[3] == "       inf iters/sec. Estimated time to finish: 0:00:00.\n");  // no time passed yet

    now = 101.0;
    const auto second = bar.get_lines(4, 1, 1.0);
    CHECK(second[0] == "     total [####......] 40.00%\n");
    CHECK(second[1] == "this epoch [..........]  0.00%\n");
    CHECK(second[2] == "         4 iter, 1 epoch / 10 iterations\n");
    CHECK(second[3] == "         2 iters/sec. Estimated time to finish: 0:00:03.\n");

    now = 104.0;  // 16 iterations in 4 s; past the end the bar stays full
    const auto third = bar.get_lines(18, 4, 4.5);
    CHECK(third[0] == "     total [##########] 100.00%\n");
    CHECK(third[3] == "         4 iters/sec. Estimated time to finish: 0:00:00.\n");
}

TEST_CASE("ProgressBar: epochs as the unit and the estimate in epochs", "[training][reporting]") {
    double now = 0.0;
    ProgressBar bar{{.training_length = std::pair<int64_t, std::string>{5, "epoch"}, .bar_length = 20, .clock = [&now] {
                         return now;
                     }}};
    (void)bar.get_lines(0, 0, 0.0);
    now = 2.0;
    const auto lines = bar.get_lines(50, 1, 1.25);  // 0.625 epochs/s: 3.75 epochs left = 6 s
    CHECK(lines[0] == "     total [#####...............] 25.00%\n");
    CHECK(lines[1] == "this epoch [#####...............] 25.00%\n");
    CHECK(lines[2] == "        50 iter, 1 epoch / 5 epochs\n");
    CHECK(lines[3] == "        25 iters/sec. Estimated time to finish: 0:00:06.\n");
}

TEST_CASE("ProgressBar: plain lines without escape codes when not a terminal", "[training][reporting]") {
    TempDir dir{"progress_plain"};
    Trainer trainer{std::make_shared<FakeUpdater>(4, nullptr), {3, "epoch"}, dir.str()};
    std::ostringstream out;
    auto bar = std::make_shared<ProgressBar>(ProgressBarOptions{.update_interval = 2, .out = &out});
    CHECK_FALSE(bar->is_terminal());
    trainer.extend(bar);
    trainer.run();
    const std::string text = out.str();
    CHECK(text.find('\033') == std::string::npos);
    CHECK(count(text, "     total [") == 6);  // iterations 2, 4, ..., 12
    CHECK(count(text, "this epoch [") == 6);
    CHECK(count(text, " epoch / 3 epochs\n") == 6);  // the length comes from the stop trigger
    CHECK(count(text, " iters/sec. Estimated time to finish: ") == 6);
    CHECK(text.find("        12 iter, 3 epoch / 3 epochs\n") != std::string::npos);
    CHECK(text.find("[##################################################] 100.00%") != std::string::npos);
    CHECK(count(text, "\n") == 24);
}

TEST_CASE("ProgressBar: redraws in place with ANSI codes on a terminal", "[training][reporting]") {
    TempDir dir{"progress_tty"};
    Trainer trainer{std::make_shared<FakeUpdater>(4, nullptr), {8, "iteration"}, dir.str()};
    std::ostringstream out;
    trainer.extend(std::make_shared<ProgressBar>(
        ProgressBarOptions{.update_interval = 4, .bar_length = 8, .out = &out, .is_terminal = true}));
    trainer.run();
    const std::string text = out.str();
    CHECK(count(text, "\033[J") == 3);   // before each of the two draws, and at finalize
    CHECK(count(text, "\033[4A") == 2);  // back up over the four lines
    CHECK(text.rfind("\033[J") == text.size() - 3);
    CHECK(text.rfind("\033[J     total [####....] 50.00%\n", 0) == 0);
    CHECK(text.find("         8 iter, 2 epoch / 8 iterations\n") != std::string::npos);
}

TEST_CASE("ProgressBar: a stop trigger without a length needs training_length", "[training][reporting]") {
    TempDir dir{"progress_nolength"};
    std::ostringstream out;
    {
        Trainer trainer{std::make_shared<FakeUpdater>(4, nullptr), std::make_shared<AfterN>(3), dir.str()};
        trainer.extend(std::make_shared<ProgressBar>(ProgressBarOptions{.update_interval = 1, .out = &out}));
        CHECK_THROWS_AS(trainer.run(), ValueError);
    }
    {
        Trainer trainer{std::make_shared<FakeUpdater>(4, nullptr), std::make_shared<AfterN>(3), dir.str()};
        trainer.extend(std::make_shared<ProgressBar>(ProgressBarOptions{
            .training_length = std::pair<int64_t, std::string>{3, "iteration"}, .update_interval = 1, .out = &out}));
        trainer.run();
        CHECK(out.str().find("         3 iter, 0 epoch / 3 iterations\n") != std::string::npos);
    }
    CHECK_THROWS_AS(ProgressBar({.update_interval = 0}), ValueError);
    CHECK_THROWS_AS(ProgressBar({.training_length = std::pair<int64_t, std::string>{3, "epochs"}}), ValueError);
}

TEST_CASE("ProgressBar: timedelta and percent text as Python prints them", "[training][reporting]") {
    using namespace training::extensions::detail;
    CHECK(format_timedelta(0) == "0:00:00");
    CHECK(format_timedelta(3.5) == "0:00:03.500000");
    CHECK(format_timedelta(3599.0000004) == "0:59:59");
    CHECK(format_timedelta(90061.25) == "1 day, 1:01:01.250000");
    CHECK(format_timedelta(2 * 86400 + 5) == "2 days, 0:00:05");
    CHECK(format_timedelta(std::numeric_limits<double>::infinity()) == "unknown");
    CHECK(format_percent(0) == " 0.00%");
    CHECK(format_percent(0.123456) == "12.35%");
    CHECK(format_percent(1) == "100.00%");
    CHECK_FALSE(is_terminal_stream(nullptr));
}
