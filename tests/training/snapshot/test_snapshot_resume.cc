// The bit-exact resume: a run interrupted at iteration k, snapshotted and resumed
// with load_npz(snapshot, trainer) ends in exactly the state of an uninterrupted run
// (parameters, Adam state, iterator order, triggers, LogReport's log), byte for byte.
#include <catch2/catch.hpp>
#include <cstring>

#include "core/ops/random.h"
#include "core/random.h"
#include "functions/activation.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"
#include "serializers/npz.h"
#include "tests/training/snapshot/snapshot_testing.h"
#include "training/datasets/tuple_dataset.h"
#include "training/extensions/log_report.h"
#include "training/extensions/snapshot.h"
#include "training/iterators/order_samplers.h"
#include "training/iterators/serial_iterator.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

using namespace rensa;
using namespace rensa::training;
using rensa::testing::TempDir;

namespace {

constexpr int64_t kExamples = 60, kBatch = 10;  // 6 iterations per epoch
constexpr int64_t kInterrupt = 8;               // mid-epoch 2: the iterator's order and summaries matter

class Mlp : public L::Cloneable<Mlp, L::Chain> {
public:
    std::shared_ptr<L::Linear> l1, l2;
    Mlp() {
        register_link("l1", &Mlp::l1, std::make_shared<L::Linear>(8, 16));
        register_link("l2", &Mlp::l2, std::make_shared<L::Linear>(16, 3));
    }
    Variable forward(const Variable& x) override { return (*l2)(F::relu((*l1)(x))); }
};

// A labelled data set that depends only on the fixed seed.
std::shared_ptr<datasets::TupleDataset> make_dataset() {
    rensa::seed(1234);
    const Array x = ops::normal({kExamples, 8});
    std::vector<int32_t> labels;
    const std::vector<float> xs = x.to_vector<float>();
    for (int64_t i = 0; i < kExamples; ++i)
        labels.push_back(xs[static_cast<size_t>(i * 8)] > 0.3f ? 2 : xs[static_cast<size_t>(i * 8 + 1)] > 0 ? 1 : 0);
    return std::make_shared<datasets::TupleDataset>(
        std::vector<Array>{x, Array::from_vector<int32_t>(labels, {kExamples})});
}

// One training setup, built the same way for every run.
struct Setup {
    std::shared_ptr<L::Classifier> model;
    std::shared_ptr<optimizers::Adam> optimizer;
    std::shared_ptr<extensions::LogReport> log_report;
    std::unique_ptr<Trainer> trainer;

    Setup(TriggerArg stop, const std::string& out) {
        const auto dataset = make_dataset();
        rensa::seed(42);  // the model's initial weights
        model = std::make_shared<L::Classifier>(std::make_shared<Mlp>());
        optimizer = std::make_shared<optimizers::Adam>();
        optimizer->setup(model);
        const auto iterator = std::make_shared<iterators::SerialIterator>(
            dataset, kBatch,
            iterators::SerialIteratorOptions{.order_sampler = std::make_shared<iterators::ShuffleOrderSampler>(7)});
        const auto updater = std::make_shared<updaters::StandardUpdater>(iterator, optimizer);
        trainer = std::make_unique<Trainer>(updater, std::move(stop), out);
        log_report = std::make_shared<extensions::LogReport>();
        trainer->extend(log_report);
        trainer->extend(extensions::snapshot(), {.trigger = {4, "iteration"}});
    }
};

// Every value a serialize visits, as raw bytes (arrays in C order on the host).
class Recorder final : public serializers::SerializerBackend {
public:
    std::map<std::string, std::string> values;
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array& value) override {
        if (!value.defined()) {
            values[key] = "None";
            return;
        }
        const Array host = value.to_device(Device::native()).as_contiguous();
        std::string bytes(static_cast<size_t>(host.nbytes()), '\0');
        if (!bytes.empty()) std::memcpy(bytes.data(), host.raw_data(), bytes.size());
        values[key] = dtype_name(host.dtype()) + std::string{":"} + bytes;
    }
    void save_string(const std::string& key, const std::string& value) override { values[key] = "str:" + value; }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return {}; }
    void defer(std::function<void()>) override {}

private:
    static std::string dtype_name(Dtype d) {
        std::ostringstream os;
        os << d;
        return os.str();
    }
};

// The trainer's whole state minus what depends on the clock.
std::map<std::string, std::string> record(Trainer& trainer) {
    const auto recorder = std::make_shared<Recorder>();
    trainer.serialize(serializers::Serializer{recorder});
    std::map<std::string, std::string> out;
    for (auto& [key, value] : recorder->values) {
        const bool clock = key.find("elapsed_time") != std::string::npos || key.ends_with("/_log");
        if (!clock) out.emplace(key, std::move(value));
    }
    return out;
}

std::vector<extensions::LogEntry> log_without_time(const extensions::LogReport& report) {
    std::vector<extensions::LogEntry> log = report.log();
    for (auto& entry : log) entry.erase("elapsed_time");
    return log;
}

bool same_bytes(const Array& a, const Array& b) {
    return a.nbytes() == b.nbytes() && std::memcmp(a.as_contiguous().raw_data(), b.as_contiguous().raw_data(),
                                                   static_cast<size_t>(a.nbytes())) == 0;
}

}  // namespace

TEST_CASE("snapshot resume matches an uninterrupted run bit for bit", "[training][snapshot]") {
    TempDir dir{"resume"};
    // A: three epochs straight.
    Setup a{{3, "epoch"}, (dir.path() / "a").string()};
    a.trainer->run();
    REQUIRE(a.trainer->updater().iteration() == 3 * kExamples / kBatch);
    // B: stops at iteration k, where its snapshot extension writes snapshot_iter_k.
    {
        Setup b{{kInterrupt, "iteration"}, (dir.path() / "b").string()};
        b.trainer->run();
        REQUIRE(b.trainer->updater().iteration() == kInterrupt);
    }
    const auto snapshot_file = dir.path() / "b" / ("snapshot_iter_" + std::to_string(kInterrupt));
    REQUIRE(std::filesystem::is_regular_file(snapshot_file));
    // C: fresh objects, loaded from B's snapshot, run to three epochs.
    Setup c{{3, "epoch"}, (dir.path() / "c").string()};
    serializers::load_npz(snapshot_file.string(), *c.trainer);
    CHECK(c.trainer->updater().iteration() == kInterrupt);
    c.trainer->run();
    CHECK(c.trainer->updater().iteration() == a.trainer->updater().iteration());

    // Parameters, byte for byte.
    const auto pa = a.model->namedparams(), pc = c.model->namedparams();
    REQUIRE(pa.size() == 4);
    REQUIRE(pa.size() == pc.size());
    for (size_t i = 0; i < pa.size(); ++i) {
        INFO(pa[i].first);
        CHECK(pa[i].first == pc[i].first);
        CHECK(same_bytes(pa[i].second.array(), pc[i].second.array()));
    }
    // The whole trainer state (Adam's t, m and v, the iterator's order and position, the
    // triggers, LogReport's summary), byte for byte.
    const auto ra = record(*a.trainer), rc = record(*c.trainer);
    CHECK(ra.count("updater/optimizer:main/predictor/l1/W/m") == 1);
    CHECK(ra.count("updater/optimizer:main/predictor/l2/b/v") == 1);
    CHECK(ra.count("updater/optimizer:main/t") == 1);
    CHECK(ra.count("updater/iterator:main/order") == 1);
    for (const auto& [key, value] : ra) {
        INFO(key);
        REQUIRE(rc.count(key) == 1);
        CHECK(rc.at(key) == value);
    }
    CHECK(ra.size() == rc.size());
    // LogReport's log (3 epoch entries) equals A's but for the elapsed time.
    REQUIRE(a.log_report->log().size() == 3);
    CHECK(log_without_time(*a.log_report) == log_without_time(*c.log_report));
    // And the run moved: the parameters are not the initial ones.
    Setup fresh{{1, "iteration"}, (dir.path() / "fresh").string()};
    CHECK_FALSE(same_bytes(fresh.model->namedparams()[0].second.array(), pa[0].second.array()));
}
