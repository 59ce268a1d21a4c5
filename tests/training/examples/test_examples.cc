// Runs the example programs (examples/*) briefly on data the tests write: a tiny
// synthetic (Fashion-)MNIST in IDX format under a temporary RENSA_DATASET_ROOT, and a
// small text file. Each test checks the exit status, the printed result and the files the
// program writes. The programs are found in RENSA_EXAMPLES_DIR (a compile definition set
// by tests/CMakeLists.txt, or the environment variable of that name, which wins).

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string examples_dir() {
    if (const char* env = std::getenv("RENSA_EXAMPLES_DIR"); env != nullptr && *env != '\0') return env;
#ifdef RENSA_EXAMPLES_DIR
    return RENSA_EXAMPLES_DIR;
#else
    FAIL("RENSA_EXAMPLES_DIR is not defined (tests/CMakeLists.txt) nor set in the environment");
    return "";
#endif
}

// A unique folder under the system's temporary directory, removed by the destructor.
class TempDir {
public:
    explicit TempDir(const std::string& name)
        : path_{fs::temp_directory_path() / ("rensa_examples_" + std::to_string(::getpid()) + "_" + name)} {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

void write_u32_be(std::ofstream& out, uint32_t value) {
    const unsigned char bytes[4] = {static_cast<unsigned char>(value >> 24), static_cast<unsigned char>(value >> 16),
                                    static_cast<unsigned char>(value >> 8), static_cast<unsigned char>(value)};
    out.write(reinterpret_cast<const char*>(bytes), 4);
}

// `n` 28x28 images whose class (i % 10) is drawn as a bright horizontal band at rows
// 2c..2c+3 over a faint pseudo-random background: easy to learn, not trivial.
void write_idx_pair(const fs::path& folder, const std::string& prefix, int n) {
    std::ofstream images{folder / (prefix + "-images-idx3-ubyte"), std::ios::binary};
    std::ofstream labels{folder / (prefix + "-labels-idx1-ubyte"), std::ios::binary};
    write_u32_be(images, 0x803);
    write_u32_be(images, static_cast<uint32_t>(n));
    write_u32_be(images, 28);
    write_u32_be(images, 28);
    write_u32_be(labels, 0x801);
    write_u32_be(labels, static_cast<uint32_t>(n));
    uint32_t state = 12345;
    for (int i = 0; i < n; ++i) {
        const int label = i % 10;
        for (int pixel = 0; pixel < 28 * 28; ++pixel) {
            state = state * 1664525u + 1013904223u;
            const int row = pixel / 28;
            const bool band = row >= 2 * label && row < 2 * label + 4;
            images.put(static_cast<char>(band ? 200 + (state >> 29) : (state >> 27)));
        }
        labels.put(static_cast<char>(label));
    }
}

// RENSA_DATASET_ROOT with fashion-mnist/ and mnist/ of 300 training and 100 test images.
void write_tiny_mnist(const fs::path& root) {
    for (const char* name : {"fashion-mnist", "mnist"}) {
        fs::create_directories(root / name);
        write_idx_pair(root / name, "train", 300);
        write_idx_pair(root / name, "t10k", 100);
    }
}

struct RunResult {
    int status;
    std::string output;  // stdout and stderr together
};

// Runs `program` from the examples folder with `args` in `cwd` (after `launcher`, e.g.
// "mpiexec -n 2", when given); captures its output.
RunResult run_example(const std::string& program, const std::string& args, const fs::path& cwd,
                      const std::string& launcher = "") {
    const fs::path log = cwd / (program + ".out");
    const std::string command = "cd '" + cwd.string() + "' && " + launcher + " '" + examples_dir() + "/" + program +
                                "' " + args + " > '" + log.string() + "' 2>&1";
    const int raw = std::system(command.c_str());
    std::ifstream in{log};
    std::stringstream text;
    text << in.rdbuf();
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, text.str()};
}

// The number after `label` in the output (NaN when absent).
double read_value(const std::string& output, const std::string& label) {
    std::smatch match;
    if (std::regex_search(output, match, std::regex(label + R"(\s*([0-9.eE+-]+|nan|inf))"))) {
        return std::stod(match[1]);
    }
    return std::nan("");
}

// "mpiexec" when it is on the PATH and the mnist program was built with MPI (its --help
// lists --communicator); empty otherwise.
std::string mpiexec_for_mnist(const fs::path& cwd) {
    if (std::system("command -v mpiexec > /dev/null 2>&1") != 0) return "";
    const RunResult help = run_example("mnist", "--help", cwd);
    return help.output.find("--communicator") == std::string::npos ? "" : "mpiexec";
}

// How many times `needle` occurs in `text`.
int count_of(const std::string& text, const std::string& needle) {
    int count = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
    return count;
}

}  // namespace

TEST_CASE("mnist example: trains on a tiny dataset and writes log plots and snapshot", "[training][examples]") {
    TempDir tmp{"mnist"};
    write_tiny_mnist(tmp.path() / "data");
    ::setenv("RENSA_DATASET_ROOT", (tmp.path() / "data").c_str(), 1);
    const RunResult run = run_example("mnist", "--epoch 2 --unit 64 --batchsize 50 --out result", tmp.path());
    INFO(run.output);
    REQUIRE(run.status == 0);
    CHECK(run.output.find("main/loss") != std::string::npos);  // the PrintReport header
    CHECK(read_value(run.output, "test accuracy:") >= 0.5);
    const fs::path out = tmp.path() / "result";
    CHECK(fs::exists(out / "log"));
    CHECK(fs::exists(out / "loss.svg"));
    CHECK(fs::exists(out / "accuracy.svg"));
    CHECK(fs::exists(out / "snapshot_iter_12"));  // 300 / 50 * 2 iterations

    SECTION("resumes from the snapshot and keeps one") {
        const RunResult resumed = run_example(
            "mnist", "--epoch 3 --unit 64 --batchsize 50 --out result --resume result/snapshot_iter_12", tmp.path());
        INFO(resumed.output);
        REQUIRE(resumed.status == 0);
        CHECK(fs::exists(out / "snapshot_iter_18"));
        CHECK_FALSE(fs::exists(out / "snapshot_iter_12"));  // n_retains = 1
    }
    SECTION("exits 1 below --min-accuracy") {
        const RunResult strict =
            run_example("mnist", "--epoch 1 --unit 16 --batchsize 100 --noplot --min-accuracy 1.01", tmp.path());
        INFO(strict.output);
        CHECK(strict.status == 1);
        CHECK(strict.output.find("test accuracy:") != std::string::npos);
    }
}

TEST_CASE("mnist example: reports a missing dataset and exits non-zero", "[training][examples]") {
    TempDir tmp{"mnist_missing"};
    fs::create_directories(tmp.path() / "empty");
    ::setenv("RENSA_DATASET_ROOT", (tmp.path() / "empty").c_str(), 1);
    const RunResult run = run_example("mnist", "--dataset mnist --epoch 1", tmp.path());
    INFO(run.output);
    CHECK(run.status != 0);
    CHECK(run.output.find("train-images-idx3-ubyte") != std::string::npos);
    CHECK_FALSE(fs::exists(tmp.path() / "result" / "log"));
}

TEST_CASE("convnet example: trains one epoch on a tiny dataset", "[training][examples]") {
    TempDir tmp{"convnet"};
    write_tiny_mnist(tmp.path() / "data");
    ::setenv("RENSA_DATASET_ROOT", (tmp.path() / "data").c_str(), 1);
    const RunResult run = run_example("convnet", "--epoch 1 --unit 32 --batchsize 50 --out result", tmp.path());
    INFO(run.output);
    REQUIRE(run.status == 0);
    const double accuracy = read_value(run.output, "test accuracy:");
    CHECK(accuracy >= 0.0);
    CHECK(accuracy <= 1.0);
    CHECK(fs::exists(tmp.path() / "result" / "log"));
    CHECK(fs::exists(tmp.path() / "result" / "snapshot_iter_6"));
}

TEST_CASE("char_rnn example: learns a repetitive text", "[training][examples]") {
    TempDir tmp{"char_rnn"};
    {
        std::ofstream text{tmp.path() / "text.txt"};
        for (int i = 0; i < 60; ++i) text << "the quick brown fox jumps over the lazy dog. ";
    }
    const RunResult run = run_example(
        "char_rnn", "--text text.txt --epoch 3 --unit 32 --batchsize 4 --bproplen 10 --sample-length 20 --out result",
        tmp.path());
    INFO(run.output);
    REQUIRE(run.status == 0);
    CHECK(run.output.find("perplexity") != std::string::npos);  // the PrintReport header
    // 29 distinct characters: a model that learnt nothing scores about 29.
    const double perplexity = read_value(run.output, "validation perplexity:");
    CHECK(perplexity >= 1.0);
    CHECK(perplexity < 10.0);
    CHECK(run.output.find("sample:") != std::string::npos);
    CHECK(fs::exists(tmp.path() / "result" / "log"));
}

TEST_CASE("char_rnn example: rejects a missing text file", "[training][examples]") {
    TempDir tmp{"char_rnn_missing"};
    const RunResult run = run_example("char_rnn", "--text does-not-exist.txt", tmp.path());
    INFO(run.output);
    CHECK(run.status != 0);
    CHECK(run.output.find("does-not-exist.txt") != std::string::npos);
}

TEST_CASE("custom_function example: passes its gradient checks and catches a wrong backward", "[training][examples]") {
    TempDir tmp{"custom_function"};
    const RunResult good = run_example("custom_function", "", tmp.path());
    INFO(good.output);
    CHECK(good.status == 0);
    CHECK(good.output.find("all checks passed") != std::string::npos);
    const RunResult bad = run_example("custom_function", "--wrong-backward", tmp.path());
    INFO(bad.output);
    CHECK(bad.status == 1);
    CHECK(bad.output.find("[FAILED] check_backward(muladd)") != std::string::npos);
}

TEST_CASE("mnist example: trains data-parallel under mpiexec -n 2", "[training][examples]") {
    TempDir tmp{"mnist_mpi"};
    const std::string mpiexec = mpiexec_for_mnist(tmp.path());
    if (mpiexec.empty()) {
        WARN("skipped: no mpiexec on the PATH, or the mnist example was built without MPI");
        return;
    }
    write_tiny_mnist(tmp.path() / "data");
    ::setenv("RENSA_DATASET_ROOT", (tmp.path() / "data").c_str(), 1);
    // One thread per process (2 processes may share 2 cores); a stuck rank fails within 60 s.
    const std::string launcher = "OMP_NUM_THREADS=1 RENSA_WATCHDOG_TIMEOUT=60 " + mpiexec + " -n 2";
    for (const std::string communicator : {"flat", "naive"}) {
        DYNAMIC_SECTION("communicator " << communicator) {
            const RunResult run =
                run_example("mnist", "--epoch 2 --unit 64 --batchsize 50 --out result --communicator " + communicator,
                            tmp.path(), launcher);
            INFO(run.output);
            REQUIRE(run.status == 0);
            CHECK(run.output.find("# processes: 2") != std::string::npos);
            // Rank 0 alone prints: one table header, one final accuracy.
            CHECK(count_of(run.output, "validation/main/accuracy") == 1);
            CHECK(count_of(run.output, "test accuracy:") == 1);
            CHECK(read_value(run.output, "test accuracy:") >= 0.5);
            const fs::path out = tmp.path() / "result";
            CHECK(fs::exists(out / "log"));
            CHECK(fs::exists(out / "snapshot_iter_6"));  // 150 examples per rank / 50 * 2 epochs
            if (communicator == "flat") {
                // Every rank resumes from rank 0's snapshot (the same weights and optimizer
                // state everywhere; the shards have the same length).
                const RunResult resumed = run_example(
                    "mnist", "--epoch 3 --unit 64 --batchsize 50 --out result --resume result/snapshot_iter_6",
                    tmp.path(), launcher);
                INFO(resumed.output);
                CHECK(resumed.status == 0);
                CHECK(fs::exists(out / "snapshot_iter_9"));
            }
        }
    }
    SECTION("the global accuracy decides the exit status of every rank") {
        const RunResult strict = run_example(
            "mnist", "--epoch 1 --unit 16 --batchsize 100 --noplot --min-accuracy 1.01", tmp.path(), launcher);
        INFO(strict.output);
        CHECK(strict.status == 1);
        CHECK(count_of(strict.output, "test accuracy:") == 1);
    }
    SECTION("a missing data set on rank 0 stops both ranks with its message") {
        fs::create_directories(tmp.path() / "empty");
        ::setenv("RENSA_DATASET_ROOT", (tmp.path() / "empty").c_str(), 1);
        const RunResult missing = run_example("mnist", "--dataset mnist --epoch 1", tmp.path(), launcher);
        INFO(missing.output);
        CHECK(missing.status == 2);
        CHECK(missing.output.find("train-images-idx3-ubyte") != std::string::npos);
    }
}
