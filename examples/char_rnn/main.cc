// A character-level LSTM language model (EmbedID -> LSTM -> Linear), the C++ form of
// Chainer's examples/ptb/train_ptb.py on characters instead of words: trained on a text
// file every Debian system has (the GPL-3 text) with truncated backpropagation through
// time (a custom updater that sums the loss over --bproplen steps, backprops and calls
// unchain_backward), evaluated on the held-out tail of the text, and reporting perplexity
// (exp of the mean per-character loss, Chainer's compute_perplexity). At the end it
// prints the validation perplexity and a sample of generated text.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/modes.h"
#include "core/random.h"
#include "examples/char_rnn/parallel_sequential_iterator.h"
#include "examples/common/trainer_setup.h"
#include "functions/activation.h"
#include "links/connection/embed_id.h"
#include "links/connection/linear.h"
#include "links/connection/lstm.h"
#include "links/model/classifier.h"
#include "optimizers/adam.h"
#include "optimizers/hooks.h"
#include "serializers/npz.h"
#include "training/converter.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/log_report.h"
#include "training/extensions/print_report.h"
#include "training/extensions/progress_bar.h"
#include "training/extensions/snapshot.h"
#include "training/trainer.h"
#include "training/updaters/standard_updater.h"

namespace {

namespace F = rensa::functions;
namespace L = rensa::links;
namespace training = rensa::training;
namespace extensions = rensa::training::extensions;
using rensa::Array;
using rensa::Variable;

// The text as ids into a vocabulary of the distinct bytes it contains (sorted).
struct Corpus {
    std::string vocabulary;    // id -> byte
    std::array<int, 256> ids;  // byte -> id (-1: not in the text)
    std::vector<int32_t> text;
};

Corpus read_corpus(const std::string& path) {
    std::ifstream file{path, std::ios::binary};
    RENSA_CHECK(file.good(), IOError, "char_rnn: cannot open the text file '", path,
                "' (pass another plain-text file with --text)");
    std::stringstream contents;
    contents << file.rdbuf();
    const std::string text = contents.str();
    RENSA_CHECK(text.size() >= 100, ValueError, "char_rnn: '", path, "' has ", text.size(),
                " bytes; need at least 100");
    Corpus corpus;
    corpus.ids.fill(-1);
    for (const unsigned char c : text) corpus.ids[c] = 0;
    for (int c = 0; c < 256; ++c) {
        if (corpus.ids[c] == 0) {
            corpus.ids[c] = static_cast<int>(corpus.vocabulary.size());
            corpus.vocabulary.push_back(static_cast<char>(c));
        }
    }
    corpus.text.reserve(text.size());
    for (const unsigned char c : text) corpus.text.push_back(corpus.ids[c]);
    return corpus;
}

// Network definition: ids (batch,) -> embeddings -> one stateful LSTM -> scores over the vocabulary.
class RNNLM : public L::Cloneable<RNNLM, L::Chain> {
public:
    std::shared_ptr<L::EmbedID> embed;
    std::shared_ptr<L::LSTM> l1;
    std::shared_ptr<L::Linear> l2;

    RNNLM(int64_t n_vocab, int64_t n_units) {
        register_link("embed", &RNNLM::embed, std::make_shared<L::EmbedID>(n_vocab, n_units));
        register_link("l1", &RNNLM::l1, std::make_shared<L::LSTM>(n_units, n_units));
        register_link("l2", &RNNLM::l2, std::make_shared<L::Linear>(n_units, n_vocab));
    }

    void reset_state() { l1->reset_state(); }

    using L::Chain::forward;
    Variable forward(const Variable& x) override { return (*l2)((*l1)((*embed)(x))); }
};

// Chainer's BPTTUpdater: one update reads bprop_len consecutive batches, sums their
// losses, backprops through all of them, then cuts the graph behind the LSTM state
// (unchain_backward), so the next update starts from the state without its history.
class BPTTUpdater final : public training::updaters::StandardUpdater {
public:
    BPTTUpdater(training::IteratorPtr iterator, std::shared_ptr<rensa::optimizers::Optimizer> optimizer,
                int64_t bprop_len)
        : StandardUpdater(std::move(iterator), std::move(optimizer)), bprop_len_{bprop_len} {}

protected:
    void update_core() override {
        training::Iterator& iterator = get_iterator("main");
        rensa::optimizers::Optimizer& optimizer = get_optimizer("main");
        Variable loss;
        for (int64_t i = 0; i < bprop_len_; ++i) {
            const training::Example batch = training::concat_examples(*iterator.next());
            const Variable step_loss = optimizer.target()(Variable(batch[0], false), Variable(batch[1], false));
            loss = loss.defined() ? loss + step_loss : step_loss;
        }
        optimizer.target().cleargrads();
        loss.backward();
        loss.unchain_backward();  // truncate the graph here
        optimizer.update();
    }

private:
    int64_t bprop_len_;
};

// Evaluates a copy of the model (sharing the parameters) from a fresh LSTM state, so the
// training state is left as it was (Chainer's eval_hook=lambda _: eval_rnn.reset_state()).
class StatefulEvaluator final : public extensions::Evaluator {
public:
    StatefulEvaluator(training::IteratorPtr iterator, std::shared_ptr<L::Classifier> model)
        : Evaluator(std::move(iterator), model), rnn_{std::dynamic_pointer_cast<RNNLM>(model->predictor)} {}

    rensa::Observation evaluate() override {
        rnn_->reset_state();
        return Evaluator::evaluate();
    }

private:
    std::shared_ptr<RNNLM> rnn_;
};

// Chainer's compute_perplexity postprocess of LogReport.
void compute_perplexity(extensions::LogEntry& entry) {
    if (const auto it = entry.find("main/loss"); it != entry.end()) entry["perplexity"] = std::exp(it->second);
    if (const auto it = entry.find("validation/main/loss"); it != entry.end()) {
        entry["val_perplexity"] = std::exp(it->second);
    }
}

struct Args {
    std::string text = "/usr/share/common-licenses/GPL-3";
    int64_t batchsize = 32;
    int64_t bproplen = 35;
    int64_t epoch = 10;
    int64_t unit = 128;
    double val_fraction = 0.1;
    double lr = 0.005;
    double gradclip = 5.0;
    std::string out = "result";
    std::string resume;
    uint64_t seed = 0;
    int64_t sample_length = 200;
};

void add_options(CLI::App& app, Args& args) {
    app.add_option("--text", args.text, "Plain-text file to train on")->capture_default_str();
    app.add_option("-b,--batchsize", args.batchsize, "Number of parallel streams in each mini-batch")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("-l,--bproplen", args.bproplen, "Number of characters in each update (truncated BPTT length)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("-e,--epoch", args.epoch, "Number of sweeps over the training text")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("-u,--unit", args.unit, "Number of LSTM units")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--val-fraction", args.val_fraction, "Fraction at the end of the text held out for validation")
        ->check(CLI::Range(0.01, 0.5))
        ->capture_default_str();
    app.add_option("--lr", args.lr, "Learning rate (Adam's alpha)")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("-c,--gradclip", args.gradclip, "Gradient norm threshold to clip")->capture_default_str();
    app.add_option("-o,--out", args.out, "Directory to output the result")->capture_default_str();
    app.add_option("-r,--resume", args.resume, "Resume the training from this snapshot");
    app.add_option("--seed", args.seed, "Random seed (weights and sampling)")->capture_default_str();
    app.add_option("--sample-length", args.sample_length, "Characters of text to generate at the end (0: none)")
        ->capture_default_str();
}

void add_extensions(training::Trainer& trainer, const std::shared_ptr<StatefulEvaluator>& evaluator, const Args& args) {
    trainer.extend(evaluator);
    trainer.extend(extensions::snapshot(), {.trigger = {args.epoch, "epoch"}});
    trainer.extend(std::make_shared<extensions::LogReport>(extensions::LogReportOptions{
        .postprocess = compute_perplexity,
    }));
    trainer.extend(std::make_shared<extensions::PrintReport>(
        std::vector<std::string>{"epoch", "iteration", "perplexity", "val_perplexity", "elapsed_time"}));
    trainer.extend(std::make_shared<extensions::ProgressBar>(extensions::ProgressBarOptions{.update_interval = 10}));
}

// Generates `length` characters: primes the model with `prime`, then samples each next
// character from the softmax of the scores.
std::string generate(RNNLM& rnn, const Corpus& corpus, const std::string& prime, int64_t length, uint64_t seed) {
    rensa::NoBackpropMode no_graph;
    rensa::ConfigScope eval{&rensa::Config::train, false};
    rnn.reset_state();
    std::mt19937_64 engine{seed};
    std::string out = prime;
    int32_t id = 0;
    Variable scores;
    for (const unsigned char c : prime) {
        id = std::max(corpus.ids[c], 0);
        scores = rnn(Variable(Array::from_vector<int32_t>({id}, {1}), false));
    }
    for (int64_t i = 0; i < length; ++i) {
        const std::vector<double> p = F::softmax(scores).array().to_vector<double>();
        id = static_cast<int32_t>(std::discrete_distribution<int32_t>(p.begin(), p.end())(engine));
        out.push_back(corpus.vocabulary[static_cast<size_t>(id)]);
        scores = rnn(Variable(Array::from_vector<int32_t>({id}, {1}), false));
    }
    return out;
}

int run(const Args& args) {
    rensa::seed(args.seed);
    const Corpus corpus = read_corpus(args.text);
    const auto n = static_cast<int64_t>(corpus.text.size());
    const auto n_val = std::max<int64_t>(2, static_cast<int64_t>(static_cast<double>(n) * args.val_fraction));
    const Array ids = Array::from_vector(corpus.text, {n});
    const Array train = ids.index({rensa::Slice{0, n - n_val, 1}});
    const Array val = ids.index({rensa::Slice{n - n_val, n, 1}});
    std::cout << "# text: " << args.text << " (" << n << " characters, " << corpus.vocabulary.size()
              << " distinct)\n# train: " << n - n_val << ", validation: " << n_val << "\n# unit: " << args.unit
              << ", batchsize: " << args.batchsize << ", bproplen: " << args.bproplen << ", epoch: " << args.epoch
              << "\n\n";

    auto rnn = std::make_shared<RNNLM>(static_cast<int64_t>(corpus.vocabulary.size()), args.unit);
    auto model = std::make_shared<L::Classifier>(rnn);
    model->compute_accuracy = false;
    auto eval_model = std::dynamic_pointer_cast<L::Classifier>(model->copy());  // shares the parameters

    auto optimizer = std::make_shared<rensa::optimizers::Adam>(rensa::optimizers::AdamOptions{.alpha = args.lr});
    optimizer->setup(model);
    optimizer->add_hook(std::make_shared<rensa::optimizer_hooks::GradientClipping>(args.gradclip));

    auto train_iter = std::make_shared<char_rnn::ParallelSequentialIterator>(train, args.batchsize);
    // 10 read heads over the held-out tail: every character is scored once, 10 at a time.
    auto val_iter = std::make_shared<char_rnn::ParallelSequentialIterator>(val, 10, /*repeat=*/false);
    auto updater = std::make_shared<BPTTUpdater>(train_iter, optimizer, args.bproplen);
    training::Trainer trainer{updater, {args.epoch, "epoch"}, args.out};
    auto evaluator = std::make_shared<StatefulEvaluator>(val_iter, eval_model);
    add_extensions(trainer, evaluator, args);

    if (!args.resume.empty()) rensa::serializers::load_npz(args.resume, trainer);
    trainer.run();

    const rensa::Observation result = evaluator->evaluate();
    const auto loss = result.find("main/loss");
    const double perplexity = loss == result.end() ? std::nan("") : std::exp(loss->second.item<double>());
    std::cout << "validation perplexity: " << std::fixed << std::setprecision(3) << perplexity << "\n";
    if (args.sample_length > 0) {
        const auto sample_rnn = std::dynamic_pointer_cast<RNNLM>(eval_model->predictor);
        std::cout << "sample:\n" << generate(*sample_rnn, corpus, "The ", args.sample_length, args.seed) << "\n";
    }
    return std::isfinite(perplexity) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    CLI::App app{"rensa example: a character-level LSTM language model with truncated BPTT"};
    add_options(app, args);
    CLI11_PARSE(app, argc, argv);
    return examples::run_reporting_errors("char_rnn", [&] { return run(args); });
}
