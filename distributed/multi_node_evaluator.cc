#include "distributed/multi_node_evaluator.h"

#include <set>
#include <typeinfo>
#include <utility>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "training/detail/evaluation.h"

namespace rensa::distributed {

namespace {

using training::extensions::Evaluator;
using training::extensions::EvaluatorOptions;

bool is_number(Dtype dtype) { return is_float(dtype) || is_integral(dtype) || dtype == Dtype::kBool; }

// Adds one batch's scalar reports, each weighted by the batch's example count.
void accumulate(const Observation& observation, double weight, detail::WeightedSums& out) {
    for (const auto& [key, value] : observation) {
        // As DictSummary: only numeric 0-d reports count.
        if (!value.defined() || value.ndim() != 0 || !is_number(value.dtype())) continue;
        auto& [sum, total] = out.sums[key];
        sum += value.item<double>() * weight;
        total += weight;
    }
}

// Keys as length-prefixed text, and back.
std::string encode_keys(const detail::WeightedSums& local) {
    std::string out;
    for (const auto& [key, unused] : local.sums) out += std::to_string(key.size()) + ":" + key;
    return out;
}

void decode_keys(const std::string& text, std::set<std::string>& keys) {
    for (size_t pos = 0; pos < text.size();) {
        const size_t colon = text.find(':', pos);
        RENSA_CHECK(colon != std::string::npos, distributed::MpiError, "multi_node_evaluator: malformed key list");
        const size_t n = std::stoull(text.substr(pos, colon - pos));
        keys.insert(text.substr(colon + 1, n));
        pos = colon + 1 + n;
    }
}

// Evaluator::evaluate's pass, keeping weighted sums instead of batch means.
detail::WeightedSums run_pass(Evaluator& actual) {
    const EvaluatorOptions& options = actual.options();
    training::Iterator& iterator = actual.get_iterator("main");
    links::Link& target = actual.get_target("main");
    RENSA_CHECK(!iterator.repeat(), ValueError,
                "MultiNodeEvaluator.evaluate: the 'main' iterator repeats (repeat=true), so the pass would never end");
    ConfigScope<bool> eval_mode{&Config::train, false};
    if (options.eval_hook) options.eval_hook(actual);
    Reporter reporter;
    training::detail::register_targets(reporter, actual.get_all_targets());
    iterator.reset();
    detail::WeightedSums sums;
    while (auto batch = iterator.next()) {
        Observation observation;
        {
            ReporterScope scope{reporter, observation};
            const training::Example converted = options.converter(*batch, options.device);
            std::vector<Variable> inputs;
            inputs.reserve(converted.size());
            for (const Array& value : converted.values) inputs.emplace_back(value, /*requires_grad=*/false);
            NoBackpropMode no_graph;
            if (options.eval_func) {
                options.eval_func(inputs);
            } else {
                (void)training::detail::call_target(target, inputs);
            }
        }
        accumulate(observation, static_cast<double>(batch->size()), sums);
    }
    return sums;
}

}  // namespace

namespace detail {

Observation reduce_weighted_means(const WeightedSums& local, Communicator& comm) {
    std::set<std::string> keys;
    for (const std::string& text : comm.allgather_obj(encode_keys(local))) decode_keys(text, keys);
    Observation result;
    if (keys.empty()) return result;  // every rank knows: no collective
    const auto n = static_cast<int64_t>(keys.size());
    std::vector<double> packed(static_cast<size_t>(2 * n), 0.0);
    int64_t i = 0;
    for (const std::string& key : keys) {
        const auto found = local.sums.find(key);
        if (found != local.sums.end()) {
            packed[static_cast<size_t>(i)] = found->second.first;
            packed[static_cast<size_t>(n + i)] = found->second.second;
        }
        ++i;
    }
    const std::vector<double> total =
        comm.allreduce(Array::from_vector(packed, Shape{2 * n}, Device::native()), ReduceOp::kSum).to_vector<double>();
    i = 0;
    for (const std::string& key : keys) {
        const double weight = total[static_cast<size_t>(n + i)];
        if (weight > 0) {
            result.emplace(
                key, ops::full(Shape{}, total[static_cast<size_t>(i)] / weight, Dtype::kFloat64, Device::native()));
        }
        ++i;
    }
    return result;
}

}  // namespace detail

MultiNodeEvaluator::MultiNodeEvaluator(std::shared_ptr<Evaluator> actual, CommunicatorPtr comm)
    : Evaluator{actual ? actual->get_all_iterators() : std::map<std::string, training::IteratorPtr>{},
                actual ? actual->get_all_targets() : std::map<std::string, std::shared_ptr<links::Link>>{},
                actual ? actual->options() : EvaluatorOptions{}},
      actual_{std::move(actual)},
      comm_{std::move(comm)} {
    RENSA_CHECK(comm_ != nullptr, ValueError, "create_multi_node_evaluator: the communicator is null");
}

Observation MultiNodeEvaluator::evaluate() {
    detail::WeightedSums local;
    if (typeid(*actual_) == typeid(Evaluator)) {
        local = run_pass(*actual_);
    } else {
        // A custom evaluate(): only its means are known; every rank weighs 1 (ChainerMN).
        for (const auto& [key, value] : actual_->evaluate()) {
            if (value.defined() && value.size() == 1 && is_number(value.dtype())) {
                local.sums[key] = {value.astype(Dtype::kFloat64).ravel().to_vector<double>()[0], 1.0};
            }
        }
    }
    return detail::reduce_weighted_means(local, *comm_);
}

std::shared_ptr<Evaluator> create_multi_node_evaluator(std::shared_ptr<Evaluator> actual, CommunicatorPtr comm) {
    RENSA_CHECK(actual != nullptr, ValueError, "create_multi_node_evaluator: the actual evaluator is null");
    return std::make_shared<MultiNodeEvaluator>(std::move(actual), std::move(comm));
}

}  // namespace rensa::distributed
