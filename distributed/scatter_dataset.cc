#include "distributed/scatter_dataset.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>
#include <utility>

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/reporter.h"
#include "distributed/communicators/detail/array_codec.h"
#include "training/datasets/sub_dataset.h"
#include "training/datasets/tuple_dataset.h"

namespace rensa::distributed {

namespace {

constexpr int kScatterTag = 7301;
// First byte of root's message: stacked fields follow as arrays, or serialized examples.
constexpr char kStackedShard = 'S';
constexpr char kExampleShard = 'E';

int64_t normalize_shard_index(int64_t i, int64_t n) {
    RENSA_CHECK(i >= -n && i < n, IndexError, "scatter_dataset: index ", i, " out of range for a shard of ", n,
                " examples");
    return i < 0 ? i + n : i;
}

// Examples received from root, held in memory.
class ExampleListDataset final : public training::Dataset {
public:
    explicit ExampleListDataset(std::vector<training::Example> examples) : examples_{std::move(examples)} {}
    int64_t size() const override { return static_cast<int64_t>(examples_.size()); }
    training::Example get_example(int64_t i) const override {
        return examples_[static_cast<size_t>(normalize_shard_index(i, size()))];
    }

private:
    std::vector<training::Example> examples_;
};

// Examples received from root as one stacked array per field: example i holds views of
// row i of each field (no per-example allocation), with the keys root's examples had.
class StackedShardDataset final : public training::Dataset {
public:
    StackedShardDataset(std::vector<Array> fields, std::vector<std::string> keys)
        : rows_{std::move(fields)}, keys_{std::move(keys)} {}
    int64_t size() const override { return rows_.size(); }
    training::Example get_example(int64_t i) const override {
        training::Example example = rows_.get_example(normalize_shard_index(i, size()));
        example.keys = keys_;
        return example;
    }

private:
    training::datasets::TupleDataset rows_;
    std::vector<std::string> keys_;
};

// Little binary writer / reader for serialize_examples.
class ByteWriter {
public:
    template <class T>
    void put(T value) {
        out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
    }
    void put_string(const std::string& s) {
        put<uint64_t>(s.size());
        out_ += s;
    }
    void put_array(const Array& a) {
        put<uint8_t>(a.defined() ? 1 : 0);
        if (!a.defined()) return;
        put_string(std::string{dtype_name(a.dtype())});
        put<uint32_t>(static_cast<uint32_t>(a.ndim()));
        for (int d = 0; d < a.ndim(); ++d) put<int64_t>(a.shape()[d]);
        const size_t at = out_.size();
        out_.resize(at + static_cast<size_t>(a.nbytes()));
        if (a.nbytes() == 0) return;
        const Array host = a.to_device(Device::native()).as_contiguous();
        std::memcpy(out_.data() + at, host.raw_data(), static_cast<size_t>(a.nbytes()));
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

class ByteReader {
public:
    explicit ByteReader(const std::string& in) : in_{in} {}
    template <class T>
    T get() {
        T value;
        std::memcpy(&value, take(sizeof(T)), sizeof(T));
        return value;
    }
    std::string get_string() {
        const auto n = get<uint64_t>();
        return std::string{take(n), n};
    }
    Array get_array() {
        if (get<uint8_t>() == 0) return Array{};
        const Dtype dtype = dtype_from_name(get_string());
        const auto ndim = get<uint32_t>();
        RENSA_CHECK(ndim <= 64, distributed::MpiError, "scatter_dataset: malformed example message (ndim ", ndim, ")");
        std::vector<int64_t> dims(ndim);
        for (auto& d : dims) d = get<int64_t>();
        Shape shape{};
        for (const int64_t d : dims) shape.push_back(d);
        const auto nbytes = static_cast<size_t>(shape_size(shape) * itemsize(dtype));
        return Array::from_host(take(nbytes), shape, dtype);
    }

private:
    const char* take(size_t n) {
        RENSA_CHECK(pos_ + n <= in_.size(), distributed::MpiError, "scatter_dataset: truncated example message (",
                    in_.size(), " bytes)");
        const char* p = in_.data() + pos_;
        pos_ += n;
        return p;
    }
    const std::string& in_;
    size_t pos_ = 0;
};

// What each rank passed to scatter_dataset: "<has dataset> <length>".
struct DatasetInfo {
    bool present = false;
    int64_t size = 0;
};

std::vector<DatasetInfo> gather_dataset_info(const training::DatasetPtr& dataset, Communicator& comm) {
    std::ostringstream mine;
    mine << (dataset ? 1 : 0) << ' ' << (dataset ? dataset->size() : 0);
    std::vector<DatasetInfo> infos;
    for (const std::string& s : comm.allgather_obj(mine.str())) {
        std::istringstream in{s};
        int present = 0;
        DatasetInfo info;
        in >> present >> info.size;
        info.present = present != 0;
        infos.push_back(info);
    }
    return infos;
}

std::string describe_sizes(const std::vector<DatasetInfo>& infos) {
    std::ostringstream out;
    for (size_t r = 0; r < infos.size(); ++r) {
        out << (r ? ", " : "") << "rank " << r << ": ";
        if (infos[r].present) {
            out << infos[r].size;
        } else {
            out << "none";
        }
    }
    return out.str();
}

void check_root(const Communicator& comm, int root, const char* what) {
    RENSA_CHECK(root >= 0 && root < comm.size(), ValueError, what, ": root ", root,
                " is not a rank of a communicator of ", comm.size());
}

// The index list the shards are cut from: the identity or root's seeded permutation.
std::optional<std::vector<int64_t>> make_order(int64_t n, bool shuffle, uint64_t seed) {
    if (!shuffle) return std::nullopt;
    return training::datasets::philox_permutation(n, seed);
}

// True when the examples have the same keys and arity, and each field the same dtype and
// shape everywhere (defined, non-empty, with room for the stacking axis).
bool stackable(const std::vector<training::Example>& examples) {
    if (examples.empty() || examples[0].values.empty()) return false;
    const training::Example& first = examples[0];
    for (const Array& f : first.values) {
        if (!f.defined() || f.nbytes() == 0 || f.ndim() + 1 > detail::kMaxHeaderDims) return false;
    }
    return std::all_of(examples.begin(), examples.end(), [&](const training::Example& ex) {
        if (ex.keys != first.keys || ex.values.size() != first.values.size()) return false;
        for (size_t k = 0; k < ex.values.size(); ++k) {
            const Array& a = ex.values[k];
            if (!a.defined() || a.dtype() != first.values[k].dtype() || a.shape() != first.values[k].shape()) {
                return false;
            }
        }
        return true;
    });
}

// Field k of every example, stacked along a new axis 0 (one contiguous native array).
Array stack_field(const std::vector<training::Example>& examples, size_t k) {
    const Array& first = examples[0].values[k];
    Shape shape{static_cast<int64_t>(examples.size())};
    for (int d = 0; d < first.ndim(); ++d) shape.push_back(first.shape()[d]);
    Array field = Array::empty(shape, first.dtype(), Device::native());
    const auto row = static_cast<size_t>(first.nbytes());
    auto* out = static_cast<char*>(field.raw_data());
    for (size_t i = 0; i < examples.size(); ++i) {
        const Array host = examples[i].values[k].to_device(Device::native()).as_contiguous();
        std::memcpy(out + i * row, host.raw_data(), row);
    }
    return field;
}

// Root -> rank `dest`: a header (mode, field count, keys), then one array per field; or,
// when the examples cannot be stacked, the serialized examples.
void send_examples(const std::vector<training::Example>& examples, Communicator& comm, int dest) {
    if (!stackable(examples)) {
        comm.send_obj(kExampleShard + detail::serialize_examples(examples), dest, kScatterTag);
        return;
    }
    ByteWriter header;
    header.put<char>(kStackedShard);
    header.put<uint64_t>(examples[0].values.size());
    header.put<uint64_t>(examples[0].keys.size());
    for (const std::string& key : examples[0].keys) header.put_string(key);
    comm.send_obj(header.take(), dest, kScatterTag);
    for (size_t k = 0; k < examples[0].values.size(); ++k) comm.send(stack_field(examples, k), dest, kScatterTag);
}

// Non-root: the shard root sent with send_examples.
training::DatasetPtr receive_shard(Communicator& comm, int root) {
    const std::string message = comm.recv_obj(root, kScatterTag);
    RENSA_CHECK(!message.empty() && (message[0] == kStackedShard || message[0] == kExampleShard), distributed::MpiError,
                "scatter_dataset: malformed shard message from root ", root, " (", message.size(), " bytes)");
    if (message[0] == kExampleShard) {
        return std::make_shared<ExampleListDataset>(detail::deserialize_examples(message.substr(1)));
    }
    ByteReader reader{message};
    (void)reader.get<char>();
    const auto n_fields = reader.get<uint64_t>();
    const auto n_keys = reader.get<uint64_t>();
    RENSA_CHECK(n_fields >= 1 && n_fields < (1u << 20) && (n_keys == 0 || n_keys == n_fields), distributed::MpiError,
                "scatter_dataset: malformed shard header (", n_fields, " fields, ", n_keys, " keys)");
    std::vector<std::string> keys(n_keys);
    for (std::string& key : keys) key = reader.get_string();
    std::vector<Array> fields;
    for (uint64_t k = 0; k < n_fields; ++k) fields.push_back(comm.recv(root, kScatterTag));
    return std::make_shared<StackedShardDataset>(std::move(fields), std::move(keys));
}

// Root: sends every other rank the examples of its shard; returns its own view.
training::DatasetPtr send_shards(const training::DatasetPtr& dataset, Communicator& comm,
                                 const ScatterDatasetOptions& options,
                                 const std::optional<std::vector<int64_t>>& order) {
    const int64_t n = dataset->size();
    for (int r = 0; r < comm.size(); ++r) {
        if (r == options.root) continue;
        const auto [b, e] = detail::shard_range(n, comm.size(), r, options.force_equal_length);
        std::vector<int64_t> indices(static_cast<size_t>(e - b));
        for (int64_t i = b; i < e; ++i) indices[static_cast<size_t>(i - b)] = order ? (*order)[i] : i;
        send_examples(dataset->get_examples(indices), comm, r);
    }
    const auto [b, e] = detail::shard_range(n, comm.size(), options.root, options.force_equal_length);
    return std::make_shared<training::datasets::SubDataset>(dataset, b, e, order);
}

Variable call_target(links::Link& target, const std::vector<Variable>& inputs) {
    return inputs.size() == 1 ? target.forward(inputs[0]) : target.forward(inputs);
}

}  // namespace

namespace detail {

std::pair<int64_t, int64_t> shard_range(int64_t n, int size, int rank, bool force_equal_length) {
    if (force_equal_length) {
        const int64_t length = (n + size - 1) / size;
        const int64_t begin = n * rank / size;
        return {begin, begin + length};
    }
    const int64_t base = n / size, extra = n % size;
    const int64_t begin = rank * base + std::min<int64_t>(rank, extra);
    return {begin, begin + base + (rank < extra ? 1 : 0)};
}

std::string serialize_examples(const std::vector<training::Example>& examples) {
    ByteWriter w;
    w.put<uint64_t>(examples.size());
    for (const training::Example& ex : examples) {
        w.put<uint64_t>(ex.values.size());
        w.put<uint64_t>(ex.keys.size());
        for (const std::string& key : ex.keys) w.put_string(key);
        for (const Array& value : ex.values) w.put_array(value);
    }
    return w.take();
}

std::vector<training::Example> deserialize_examples(const std::string& bytes) {
    ByteReader r{bytes};
    std::vector<training::Example> examples(r.get<uint64_t>());
    for (training::Example& ex : examples) {
        ex.values.resize(r.get<uint64_t>());
        ex.keys.resize(r.get<uint64_t>());
        for (std::string& key : ex.keys) key = r.get_string();
        for (Array& value : ex.values) value = r.get_array();
    }
    return examples;
}

}  // namespace detail

IndexShard scatter_index(int64_t n_total, const CommunicatorPtr& comm, const ScatterDatasetOptions& options) {
    RENSA_CHECK(comm != nullptr, ValueError, "scatter_index: the communicator is null");
    check_root(*comm, options.root, "scatter_index");
    // Root's length and seed count (ChainerMN ignores the other ranks' values).
    std::ostringstream mine;
    mine << n_total << ' ' << options.seed;
    std::istringstream in{comm->bcast_obj(mine.str(), options.root)};
    int64_t n = 0;
    uint64_t seed = 0;
    in >> n >> seed;
    RENSA_CHECK(n >= 0, ValueError, "scatter_index: n_total must be >= 0, got ", n, " (root ", options.root, ")");
    const auto order = make_order(n, options.shuffle, seed);
    IndexShard shard;
    std::tie(shard.begin, shard.end) = detail::shard_range(n, comm->size(), comm->rank(), options.force_equal_length);
    for (int64_t i = shard.begin; i < shard.end; ++i) shard.indices.push_back(order ? (*order)[i] : i);
    return shard;
}

training::DatasetPtr scatter_dataset(const training::DatasetPtr& dataset, const CommunicatorPtr& comm,
                                     const ScatterDatasetOptions& options) {
    RENSA_CHECK(comm != nullptr, ValueError, "scatter_dataset: the communicator is null");
    check_root(*comm, options.root, "scatter_dataset");
    const std::vector<DatasetInfo> infos = gather_dataset_info(dataset, *comm);
    const DatasetInfo& root_info = infos[static_cast<size_t>(options.root)];
    RENSA_CHECK(root_info.present, ValueError, "scatter_dataset: root rank ", options.root, " passed no dataset (",
                describe_sizes(infos), ")");
    const uint64_t seed = std::stoull(comm->bcast_obj(std::to_string(options.seed), options.root));
    const auto order = make_order(root_info.size, options.shuffle, seed);
    const bool everywhere = std::all_of(infos.begin(), infos.end(), [](const DatasetInfo& i) { return i.present; });
    if (everywhere) {
        const bool same =
            std::all_of(infos.begin(), infos.end(), [&](const DatasetInfo& i) { return i.size == root_info.size; });
        RENSA_CHECK(same, ValueError, "scatter_dataset: every rank passed a dataset but their lengths differ (",
                    describe_sizes(infos), "); pass the same dataset everywhere, or nullptr on every rank but root ",
                    options.root);
        const auto [b, e] = detail::shard_range(root_info.size, comm->size(), comm->rank(), options.force_equal_length);
        return std::make_shared<training::datasets::SubDataset>(dataset, b, e, order);
    }
    if (comm->rank() == options.root) return send_shards(dataset, *comm, options, order);
    return receive_shard(*comm, options.root);
}

int64_t iterations_per_epoch(int64_t shard_len, int64_t batch_size, Communicator& comm) {
    RENSA_CHECK(batch_size >= 1, ValueError, "iterations_per_epoch: batch_size must be >= 1, got ", batch_size);
    RENSA_CHECK(shard_len >= 0, ValueError, "iterations_per_epoch: shard_len must be >= 0, got ", shard_len);
    const auto local = static_cast<double>((shard_len + batch_size - 1) / batch_size);
    return static_cast<int64_t>(comm.allreduce_obj(local, ReduceOp::kMax));
}

JoinIterator::JoinIterator(training::DatasetPtr shard, int64_t batch_size, const CommunicatorPtr& comm,
                           JoinIteratorOptions options)
    : shard_{std::move(shard)}, repeat_{options.repeat} {
    RENSA_CHECK(shard_ != nullptr, ValueError, "JoinIterator: the dataset is null");
    RENSA_CHECK(comm != nullptr, ValueError, "JoinIterator: the communicator is null");
    RENSA_CHECK(batch_size >= 1, ValueError, "JoinIterator: batch_size must be >= 1, got ", batch_size);
    inner_ = std::make_shared<training::iterators::SerialIterator>(
        shard_, batch_size,
        training::iterators::SerialIteratorOptions{
            .repeat = false, .shuffle = options.shuffle, .order_sampler = options.order_sampler});
    // Every rank learns every length, so the checks below fail on all ranks alike.
    const std::vector<std::string> lengths = comm->allgather_obj(std::to_string(shard_->size()));
    int64_t most = 0;
    std::string empty_ranks;
    for (size_t r = 0; r < lengths.size(); ++r) {
        const int64_t len = std::stoll(lengths[r]);
        most = std::max(most, (len + batch_size - 1) / batch_size);
        if (len == 0) empty_ranks += (empty_ranks.empty() ? "" : ", ") + std::to_string(r);
    }
    iterations_per_epoch_ = most;
    RENSA_CHECK(empty_ranks.empty() || most == 0, ValueError, "JoinIterator: rank(s) ", empty_ranks,
                " have an empty shard and cannot make padding batches for the ", most,
                " iterations per epoch; scatter fewer ranks than examples or use force_equal_length");
    RENSA_CHECK(!(repeat_ && most == 0), ValueError, "JoinIterator: every shard is empty and repeat is on");
}

std::optional<std::vector<training::Example>> JoinIterator::next() {
    if (iterations_per_epoch_ == 0 || (!repeat_ && epoch_ > 0)) return std::nullopt;
    previous_epoch_detail_ = epoch_detail();
    std::optional<std::vector<training::Example>> batch = inner_->next();
    padding_ = !batch.has_value();
    if (padding_) batch = padding_batch();
    ++position_;
    is_new_epoch_ = position_ == iterations_per_epoch_;
    if (is_new_epoch_) {
        position_ = 0;
        ++epoch_;
        inner_->reset();  // a shuffling iterator draws the next epoch's order
    }
    return batch;
}

std::vector<training::Example> JoinIterator::padding_batch() const {
    std::vector<int64_t> indices(static_cast<size_t>(std::min(inner_->batch_size(), shard_->size())));
    std::iota(indices.begin(), indices.end(), int64_t{0});
    return shard_->get_examples(indices);
}

double JoinIterator::epoch_detail() const {
    if (iterations_per_epoch_ == 0) return static_cast<double>(epoch_);
    return static_cast<double>(epoch_) + static_cast<double>(position_) / static_cast<double>(iterations_per_epoch_);
}

std::optional<double> JoinIterator::previous_epoch_detail() const {
    if (previous_epoch_detail_ < 0) return std::nullopt;
    return previous_epoch_detail_;
}

void JoinIterator::reset() {
    inner_->reset();
    position_ = epoch_ = 0;
    is_new_epoch_ = padding_ = false;
    previous_epoch_detail_ = -1.0;
}

void JoinIterator::serialize(const serializers::Serializer& serializer) {
    if (!serializer.is_loading()) {
        int64_t length = iterations_per_epoch_;
        serializer("iterations_per_epoch", length);
    } else {
        // Checked during the walk, before any deferred assignment: a mismatch changes nothing.
        const auto stored = serializer.backend().load(serializer.key("iterations_per_epoch"), Dtype::kInt64, Shape{});
        RENSA_CHECK(!stored || stored->item<int64_t>() == iterations_per_epoch_, ValueError,
                    "JoinIterator.serialize: the snapshot has ", stored ? stored->item<int64_t>() : 0,
                    " iterations per epoch, this iterator ", iterations_per_epoch_);
    }
    serializer("position", position_);
    serializer("epoch", epoch_);
    serializer("is_new_epoch", is_new_epoch_);
    serializer("previous_epoch_detail", previous_epoch_detail_);
    inner_->serialize(serializer["inner"]);
}

training::updaters::LossFunction join_loss_func(std::shared_ptr<JoinIterator> iterator,
                                                training::updaters::LossFunction loss) {
    RENSA_CHECK(iterator != nullptr && loss != nullptr, ValueError, "join_loss_func: null iterator or loss function");
    return [iterator = std::move(iterator), loss = std::move(loss)](const std::vector<Variable>& inputs) {
        if (!iterator->is_padding()) return loss(inputs);
        Reporter* current = get_current_reporter();
        if (current == nullptr) return loss(inputs) * 0.0;
        // A copy knows the same observers (reports with an observer still resolve) but
        // collects into a throwaway observation.
        Reporter silent = *current;
        Observation dropped;
        ReporterScope scope{silent, dropped};
        return loss(inputs) * 0.0;
    };
}

training::updaters::LossFunction join_loss_func(std::shared_ptr<JoinIterator> iterator,
                                                std::shared_ptr<links::Link> target) {
    RENSA_CHECK(target != nullptr, ValueError, "join_loss_func: the target is null");
    return join_loss_func(std::move(iterator), [target = std::move(target)](const std::vector<Variable>& inputs) {
        return call_target(*target, inputs);
    });
}

}  // namespace rensa::distributed
