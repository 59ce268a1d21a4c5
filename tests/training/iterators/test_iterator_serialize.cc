#include <catch2/catch.hpp>
#include <map>
#include <numeric>

#include "core/error.h"
#include "serializers/npz.h"
#include "tests/training/iterators/iterator_testing.h"
#include "training/iterators/iterators.h"

namespace rensa {
namespace {

using testing::IndexDataset;
using training::iterators::MultithreadIterator;
using training::iterators::SerialIterator;
using training::iterators::ShuffleOrderSampler;
using Indices = std::vector<int64_t>;

SerialIterator shuffled(int64_t size, int64_t batch_size, uint64_t seed, bool repeat = true) {
    return SerialIterator{std::make_shared<IndexDataset>(size),
                          batch_size,
                          {.repeat = repeat, .order_sampler = std::make_shared<ShuffleOrderSampler>(seed)}};
}

// Writes `members` (key -> array) as an npz file, like a hand-made or foreign snapshot.
void write_npz(const std::string& path, const std::map<std::string, Array>& members) {
    serializers::NpzSaver saver;
    for (const auto& [key, value] : members) saver.save(key, value);
    saver.write(path, {});
}

Array scalar_i(int64_t v) { return Array::from_vector<int64_t>({v}, Shape{}); }
Array order_array(const Indices& order) {
    return Array::from_vector<int64_t>(order, Shape{static_cast<int64_t>(order.size())});
}

// Records the keys a save visits.
class KeyRecorder final : public serializers::SerializerBackend {
public:
    bool is_loading() const override { return false; }
    void save(const std::string& key, const Array& value) override { keys[key] = value.copy(); }
    std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return {}; }
    void defer(std::function<void()> assign) override { assign(); }
    std::map<std::string, Array> keys;
};

}  // namespace

TEST_CASE("SerialIterator: serialize keys are Chainer's plus the sampler state", "[training][iterators]") {
    SerialIterator it = shuffled(10, 4, 9);
    (void)testing::take_batches(it, 3);
    const auto recorder = std::make_shared<KeyRecorder>();
    it.serialize(serializers::Serializer{recorder});
    std::vector<std::string> keys;
    for (const auto& [key, value] : recorder->keys) keys.push_back(key);
    CHECK(keys == std::vector<std::string>{"current_position", "epoch", "is_new_epoch", "order",
                                           "order_sampler/counter", "order_sampler/seed", "previous_epoch_detail"});
    CHECK(recorder->keys["current_position"].item<int64_t>() == 2);
    CHECK(recorder->keys["epoch"].item<int64_t>() == 1);
    CHECK(recorder->keys["is_new_epoch"].item<bool>());
    CHECK(recorder->keys["order"].dtype() == Dtype::kInt64);
    CHECK(recorder->keys["order"].to_vector<int64_t>() == *it.order());
    CHECK(recorder->keys["order_sampler/seed"].item<int64_t>() == 9);
    CHECK(recorder->keys["previous_epoch_detail"].item<double>() == Approx(0.8));

    SerialIterator plain{std::make_shared<IndexDataset>(10), 4, {.shuffle = false}};
    const auto plain_recorder = std::make_shared<KeyRecorder>();
    plain.serialize(serializers::Serializer{plain_recorder});
    CHECK(plain_recorder->keys.size() == 4);  // no order, no sampler
    CHECK(plain_recorder->keys["previous_epoch_detail"].item<double>() == -1.0);
}

TEST_CASE("SerialIterator: a resumed iterator gives the batches of an uninterrupted one", "[training][iterators]") {
    const testing::TempDir dir{"serial-resume"};
    for (const int64_t batch_size : {int64_t{3}, int64_t{5}, int64_t{7}}) {
        for (const int steps : {0, 1, 4, 7}) {
            INFO("batch_size " << batch_size << " steps " << steps);
            SerialIterator original = shuffled(10, batch_size, 21);
            (void)testing::take_batches(original, steps);
            const std::string path = dir.file("it.npz");
            serializers::save_npz(path, original);
            SerialIterator resumed = shuffled(10, batch_size, 1234);
            serializers::load_npz(path, resumed);
            CHECK(resumed.epoch() == original.epoch());
            CHECK(resumed.epoch_detail() == original.epoch_detail());
            CHECK(resumed.is_new_epoch() == original.is_new_epoch());
            CHECK(resumed.previous_epoch_detail() == original.previous_epoch_detail());
            // Several epochs ahead: the sampler state came along.
            CHECK(testing::take_batches(resumed, 25) == testing::take_batches(original, 25));
            CHECK(resumed.epoch() == original.epoch());
        }
    }
}

TEST_CASE("SerialIterator: resume without shuffle and without repeat", "[training][iterators]") {
    const testing::TempDir dir{"serial-resume-plain"};
    const auto dataset = std::make_shared<IndexDataset>(10);
    SerialIterator original{dataset, 4, {.repeat = false, .shuffle = false}};
    (void)testing::take_batches(original, 2);
    serializers::save_npz(dir.file("it.npz"), original);
    SerialIterator resumed{dataset, 4, {.repeat = false, .shuffle = false}};
    serializers::load_npz(dir.file("it.npz"), resumed);
    CHECK(testing::take_batches(resumed, 2) == std::vector<Indices>{{8, 9}, {}});
    CHECK(resumed.epoch() == 1);
}

TEST_CASE("SerialIterator: a bad loaded order is rejected and changes nothing", "[training][iterators]") {
    const testing::TempDir dir{"serial-bad-order"};
    const std::string path = dir.file("bad.npz");
    const auto base = [](const Indices& order) {
        return std::map<std::string, Array>{{"current_position", scalar_i(3)},
                                            {"epoch", scalar_i(2)},
                                            {"is_new_epoch", Array::from_vector<bool>({false}, Shape{})},
                                            {"order", order_array(order)},
                                            {"order_sampler/seed", scalar_i(77)},
                                            {"order_sampler/counter", scalar_i(5)},
                                            {"previous_epoch_detail", Array::from_vector<double>({2.0}, Shape{})}};
    };
    struct Case {
        std::string name;
        std::map<std::string, Array> members;
    };
    std::vector<Case> cases = {
        {"short order", base({0, 1, 2, 3, 4, 5, 6, 7, 8})},
        {"long order", base({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0})},
        {"repeated index", base({0, 1, 2, 3, 4, 5, 6, 7, 8, 8})},
        {"index out of range", base({0, 1, 2, 3, 4, 5, 6, 7, 8, 10})},
        {"negative index", base({0, 1, 2, 3, 4, 5, 6, 7, 8, -1})},
    };
    Case position = {"position past the end", base({9, 8, 7, 6, 5, 4, 3, 2, 1, 0})};
    position.members["current_position"] = scalar_i(11);
    cases.push_back(position);
    Case epoch = {"negative epoch", base({9, 8, 7, 6, 5, 4, 3, 2, 1, 0})};
    epoch.members["epoch"] = scalar_i(-1);
    cases.push_back(epoch);
    Case two_d = {"2-d order", base({9, 8, 7, 6, 5, 4, 3, 2, 1, 0})};
    two_d.members["order"] = Array::from_vector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{2, 5});
    cases.push_back(two_d);
    Case float_order = {"float order", base({9, 8, 7, 6, 5, 4, 3, 2, 1, 0})};
    float_order.members["order"] = Array::from_vector<double>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{10});
    cases.push_back(float_order);

    for (const Case& c : cases) {
        INFO(c.name);
        write_npz(path, c.members);
        SerialIterator it = shuffled(10, 4, 8);
        SerialIterator twin = shuffled(10, 4, 8);
        (void)testing::take_batches(it, 2);
        (void)testing::take_batches(twin, 2);
        CHECK_THROWS_AS(serializers::load_npz(path, it), Error);
        const auto& sampler = dynamic_cast<const ShuffleOrderSampler&>(*it.order_sampler());
        CHECK(sampler.seed() == 8);
        CHECK(it.epoch() == twin.epoch());
        CHECK(it.previous_epoch_detail() == twin.previous_epoch_detail());
        CHECK(testing::take_batches(it, 8) == testing::take_batches(twin, 8));
    }
    // The same file with a good order loads.
    write_npz(path, base({9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
    SerialIterator it = shuffled(10, 4, 8);
    serializers::load_npz(path, it);
    CHECK(it.epoch() == 2);
    CHECK(testing::take_batches(it, 1) == std::vector<Indices>{{6, 5, 4, 3}});
    const auto& sampler = dynamic_cast<const ShuffleOrderSampler&>(*it.order_sampler());
    CHECK(sampler.seed() == 77);
    CHECK(sampler.counter() == 5);
    (void)testing::take_batches(it, 1);  // crosses the epoch end: the next order comes from (77, 5)
    CHECK(sampler.counter() > 5);
    CHECK(sampler.seed() == 77);
}

TEST_CASE("SerialIterator: loads Chainer's files without sampler state and with _order", "[training][iterators]") {
    const testing::TempDir dir{"serial-chainer"};
    write_npz(dir.file("chainer.npz"), {{"current_position", scalar_i(8)},
                                        {"epoch", scalar_i(1)},
                                        {"is_new_epoch", Array::from_vector<bool>({false}, Shape{})},
                                        {"_order", order_array({9, 8, 7, 6, 5, 4, 3, 2, 1, 0})},
                                        {"previous_epoch_detail", Array::from_vector<double>({1.4}, Shape{})}});
    SerialIterator it = shuffled(10, 4, 8);
    serializers::load_npz(dir.file("chainer.npz"), it);
    CHECK(it.epoch_detail() == Approx(1.8));
    CHECK(*it.previous_epoch_detail() == Approx(1.4));
    const auto batch = it.next();
    REQUIRE(batch);
    const Indices got = testing::batch_indices(*batch);
    CHECK(Indices(got.begin(), got.begin() + 2) == Indices{1, 0});
    CHECK(it.epoch() == 2);
    // A missing key is still an error in strict mode, and the iterator stays as it was.
    write_npz(dir.file("partial.npz"), {{"current_position", scalar_i(8)}, {"epoch", scalar_i(1)}});
    SerialIterator other = shuffled(10, 4, 8);
    CHECK_THROWS_AS(serializers::load_npz(dir.file("partial.npz"), other), KeyError);
    CHECK(other.epoch() == 0);
    CHECK(other.current_position() == 0);
}

TEST_CASE("MultithreadIterator: a resumed iterator gives the batches of an uninterrupted one",
          "[training][iterators]") {
    const testing::TempDir dir{"multithread-resume"};
    const auto dataset = std::make_shared<IndexDataset>(11);
    const auto make = [&](uint64_t seed) {
        return std::make_unique<MultithreadIterator>(dataset, 4,
                                                     training::iterators::MultithreadIteratorOptions{
                                                         .order_sampler = std::make_shared<ShuffleOrderSampler>(seed)});
    };
    for (const int steps : {1, 2, 3, 5}) {
        INFO("steps " << steps);
        const auto original = make(5);
        (void)testing::take_batches(*original, steps);  // a prefetch is pending now
        serializers::save_npz(dir.file("mt.npz"), *original);
        const auto resumed = make(99);
        (void)testing::take_batches(*resumed, 2);  // its own prefetch must be discarded
        serializers::load_npz(dir.file("mt.npz"), *resumed);
        SerialIterator serial = shuffled(11, 4, 99);
        serializers::load_npz(dir.file("mt.npz"), serial);  // the same file fits a SerialIterator
        const auto expected = testing::take_batches(*original, 20);
        CHECK(testing::take_batches(*resumed, 20) == expected);
        CHECK(testing::take_batches(serial, 20) == expected);
    }
}

}  // namespace rensa
