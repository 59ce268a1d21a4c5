// rensa._core.links: the normalization and loss links of issue 23 (BatchRenormalization,
// DecorrelatedBatchNormalization,
// BlackOut, CRF1d, BinaryHierarchicalSoftmax) with Chainer 7's signatures.
#include <memory>
#include <string_view>
#include <vector>

#include "autograd/modes.h"
#include "links/loss/black_out.h"
#include "links/loss/crf1d.h"
#include "links/loss/hierarchical_softmax.h"
#include "links/normalization/batch_renormalization.h"
#include "links/normalization/decorrelated_batch_normalization.h"
#include "python/src/convert/array.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace {
namespace L = rensa::links;

// Chainer's tree: nested 2-tuples whose leaves are integer word ids.
L::BinaryTree to_tree(py::handle node) {
    if (py::isinstance<py::tuple>(node)) {
        const py::tuple t = py::reinterpret_borrow<py::tuple>(node);
        if (t.size() != 2) throw py::value_error("All internal nodes must have two child nodes");
        return L::BinaryTree::node(to_tree(t[0]), to_tree(t[1]));
    }
    return L::BinaryTree::leaf(node.cast<int64_t>());
}

// The tree of create_huffman_tree over word indexes, with each index replaced by its word.
py::object from_tree(const L::BinaryTree& tree, const py::list& words) {
    if (tree.is_leaf()) return words[static_cast<size_t>(tree.word)];
    return py::make_tuple(from_tree(*tree.left, words), from_tree(*tree.right, words));
}

py::object create_huffman_tree(const py::dict& word_counts) {
    if (word_counts.empty()) throw py::value_error("Empty vocabulary");
    py::list words;
    std::vector<double> counts;
    for (auto item : word_counts) {
        words.append(item.first);
        counts.push_back(item.second.cast<double>());
    }
    return from_tree(L::BinaryHierarchicalSoftmax::create_huffman_tree(counts), words);
}

py::tuple crf_argmax(L::CRF1d& self, const py::object& xs, bool transpose) {
    const std::vector<Variable> x = to_variables(xs);
    std::pair<Variable, std::vector<Array>> result;
    {
        py::gil_scoped_release release;
        result = self.argmax(x, transpose);
    }
    py::list path;
    for (const Array& p : result.second) path.append(to_numpy(p));
    return py::make_tuple(result.first, path);
}

Variable crf_forward(L::CRF1d& self, const py::object& xs, const py::object& ys, std::string_view reduce,
                     bool transpose) {
    const std::vector<Variable> x = to_variables(xs), y = to_variables(ys);
    py::gil_scoped_release release;
    return self.forward(x, y, reduce, transpose);
}

void bind_batch_renormalization(py::module_& m) {
    const auto br_forward = [](L::BatchRenormalization& self, const Variable& x, bool finetune) {
        return self.forward(x, L::BatchNormalizationForwardOptions{finetune});
    };
    link_class<L::BatchRenormalization, L::BatchNormalization>(m, "BatchRenormalization",
                                                               R"doc(Batch renormalization layer.

A BatchNormalization whose training mode corrects the batch statistics toward the running ones
(``functions.batch_renormalization``): the variance correction ``r`` is clipped to ``[1 / rmax, rmax]`` and the mean
correction ``d`` to ``[-dmax, dmax]``. The test mode uses the running statistics, as BatchNormalization does.

Args:
    size (int): The channel count.
    rmax (float): Bound of the variance correction.
    dmax (float): Bound of the mean correction.
    decay, eps, dtype, use_gamma, use_beta, initial_gamma, initial_beta, initial_avg_mean, initial_avg_var: As in
        BatchNormalization (there is no ``axis``).
)doc")
        .def(link_init<L::BatchRenormalization>([](int64_t size, double rmax, double dmax, double decay, double eps,
                                                   py::handle dtype, bool use_gamma, bool use_beta,
                                                   py::handle initial_gamma, py::handle initial_beta,
                                                   py::handle initial_avg_mean, py::handle initial_avg_var) {
                 const L::BatchNormalizationOptions o =
                     batch_normalization_options(decay, eps, dtype, use_gamma, use_beta, initial_gamma, initial_beta,
                                                 initial_avg_mean, initial_avg_var);
                 return std::make_shared<L::BatchRenormalization>(size, rmax, dmax, o);
             }),
             py::arg("size"), py::arg("rmax") = 1, py::arg("dmax") = 0, py::arg("decay") = 0.9, py::arg("eps") = 2e-5,
             py::arg("dtype") = py::none(), py::arg("use_gamma") = true, py::arg("use_beta") = true,
             py::arg("initial_gamma") = py::none(), py::arg("initial_beta") = py::none(),
             py::arg("initial_avg_mean") = py::none(), py::arg("initial_avg_var") = py::none())
        // Chainer's BatchRenormalization.forward(x, finetune=False) takes finetune positionally too.
        .def("__call__", br_forward, py::arg("x"), py::arg("finetune") = false)
        .def("forward", br_forward, py::arg("x"), py::arg("finetune") = false,
             "Normalizes ``x`` with the renormalized batch statistics in training, the running ones in testing.")
        .def_readwrite("rmax", &L::BatchRenormalization::rmax, "The bound of the variance correction ``r``.")
        .def_readwrite("dmax", &L::BatchRenormalization::dmax, "The bound of the mean correction ``d``.");
}

void bind_decorrelated_batch_normalization(py::module_& m) {
    using DBN = L::DecorrelatedBatchNormalization;
    const auto forward = [](DBN& self, const Variable& x, bool finetune) {
        return self.forward(x, L::BatchNormalizationForwardOptions{finetune});
    };
    link_class<DBN, L::Link>(m, "DecorrelatedBatchNormalization", R"doc(Decorrelated batch normalization layer.

ZCA-whitens each group of channels (``functions.decorrelated_batch_normalization``). In training it uses the batch
statistics and updates ``avg_mean`` and ``avg_projection`` (a moving average, or the plain average while
fine-tuning); in testing it uses them. There is no learned scale or shift, as in Chainer.

Args:
    size (int): The channel count, a multiple of ``groups``.
    groups (int): The number of groups of channels.
    decay (float): Decay rate of the moving average.
    eps (float): Added to the covariance for numerical stability.
    dtype: The dtype of the statistics.
)doc")
        .def(link_init<DBN>([](int64_t size, int64_t groups, double decay, double eps, py::handle dtype) {
                 return std::make_shared<DBN>(size, groups, decay, eps, to_dtype(dtype));
             }),
             py::arg("size"), py::arg("groups") = 16, py::arg("decay") = 0.9, py::arg("eps") = 2e-5,
             py::arg("dtype") = py::module_::import("numpy").attr("float32"))
        .def("__call__", forward, py::arg("x"), py::kw_only(), py::arg("finetune") = false)
        .def("forward", forward, py::arg("x"), py::kw_only(), py::arg("finetune") = false,
             "Whitens ``x``; ``finetune=True`` (in training) accumulates the plain average of the statistics.")
        .def("start_finetuning", &DBN::start_finetuning, "Restarts the fine-tuning average (sets ``N`` to 0).")
        .def_property(
            "avg_mean", [](const DBN& self) { return array_or_none(self.avg_mean); },
            [](DBN& self, py::handle v) { self.avg_mean = to_array(v); }, "The running mean, (groups, C / groups).")
        .def_property(
            "avg_projection", [](const DBN& self) { return array_or_none(self.avg_projection); },
            [](DBN& self, py::handle v) { self.avg_projection = to_array(v); },
            "The running whitening matrices, (groups, C / groups, C / groups).")
        .def_readwrite("N", &DBN::N, "The number of batches averaged while fine-tuning.")
        .def_readwrite("decay", &DBN::decay, "The decay rate of the moving average.")
        .def_readwrite("eps", &DBN::eps, "The epsilon added to the covariance.")
        .def_readwrite("groups", &DBN::groups, "The number of groups of channels.");
}

}  // namespace

void bind_normloss_links(py::module_& m) {
    bind_batch_renormalization(m);
    bind_decorrelated_batch_normalization(m);

    const auto black_out = [](L::BlackOut& self, const Variable& x, const Variable& t) { return self.forward(x, t); };
    link_class<L::BlackOut, L::Link>(m, "BlackOut", R"doc(BlackOut loss layer.

Holds the output embeddings ``W`` of shape ``(len(counts), in_size)``; the loss of each row contrasts the true word
with ``sample_size`` negatives drawn from the unigram distribution of ``counts`` (``functions.black_out``, mean over
the batch). ``W`` starts as NaN (Chainer's parameter without an initializer): set it before use.

Args:
    in_size (int): The size of the input vectors.
    counts (list of numbers): The frequency of each word.
    sample_size (int): Negatives per row.
)doc")
        .def(link_init<L::BlackOut>([](int64_t in_size, const std::vector<double>& counts, int64_t sample_size) {
                 return std::make_shared<L::BlackOut>(in_size, counts, sample_size);
             }),
             py::arg("in_size"), py::arg("counts"), py::arg("sample_size"))
        .def("__call__", black_out, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>())
        .def("forward", black_out, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>(),
             "The mean loss of ``x`` (N, in_size) against the integer labels ``t`` (N,).")
        .def_readwrite("sample_size", &L::BlackOut::sample_size, "The number of negatives per row.")
        // Chainer's test hook: negative samples used instead of drawing (None: draw).
        .def_property(
            "sample_data", [](const L::BlackOut& self) { return array_or_none(self.sample_data); },
            [](L::BlackOut& self, py::handle v) { self.sample_data = v.is_none() ? Array{} : to_array(v); },
            "Negative samples (N, sample_size) used instead of drawing, for tests; None draws.");

    link_class<L::CRF1d, L::Link>(m, "CRF1d", R"doc(Linear-chain conditional random field loss layer.

Holds the transition cost ``cost`` of shape ``(n_label, n_label)``. ``xs`` is time-major: ``xs[t]`` has shape
``(B_t, n_label)`` with non-increasing ``B_t``; with ``transpose=True`` it is a list of sequences ``(L_i, n_label)``
in any order, sorted by decreasing length first.

Args:
    n_label (int): The number of labels.
    initial_cost: Initializer of ``cost`` (zeros by default).
)doc")
        .def(link_init<L::CRF1d>([](int64_t n_label, py::handle initial_cost) {
                 return std::make_shared<L::CRF1d>(n_label, to_initializer(initial_cost));
             }),
             py::arg("n_label"), py::arg("initial_cost") = py::none())
        .def("__call__", &crf_forward, py::arg("xs"), py::arg("ys"), py::arg("reduce") = "mean",
             py::arg("transpose") = false)
        .def("forward", &crf_forward, py::arg("xs"), py::arg("ys"), py::arg("reduce") = "mean",
             py::arg("transpose") = false,
             "The negative log-likelihood of the label sequences ``ys`` under the scores ``xs`` "
             "(``functions.crf1d``); ``reduce='mean'`` averages over the batch, ``'no'`` gives one loss per "
             "sequence (in sorted order with ``transpose``).")
        .def("argmax", &crf_argmax, py::arg("xs"), py::arg("transpose") = false,
             "The most probable label paths (``functions.argmax_crf1d``): returns ``(scores, path)``; with "
             "``transpose`` ``path[i]`` is the path of the i-th given sequence while the scores stay in sorted "
             "order, as in Chainer.");

    const auto hsm = [](L::BinaryHierarchicalSoftmax& self, const Variable& x, const Variable& t) {
        return self.forward(x, t);
    };
    link_class<L::BinaryHierarchicalSoftmax, L::Link>(m, "BinaryHierarchicalSoftmax",
                                                      R"doc(Hierarchical softmax loss layer over a binary tree of words.

The loss of a word sums, over the internal nodes on its path from the root, ``softplus(-code * W[node] . x)`` with
``code`` +1 for a left turn and -1 for a right one; ``W`` has one row per internal node (uniform in [-1, 1) at
first). ``link(x, t)`` returns the sum over the batch.

Args:
    in_size (int): The size of the input vectors.
    tree: The tree: nested 2-tuples whose leaves are integer word ids (see ``create_huffman_tree``).
    dtype: The dtype of ``W`` (``None``: ``config.dtype``).
)doc")
        .def(link_init<L::BinaryHierarchicalSoftmax>([](int64_t in_size, py::handle tree, py::handle dtype) {
                 const Dtype dt = dtype.is_none() ? config().dtype : to_dtype(dtype);  // chainer.get_dtype
                 return std::make_shared<L::BinaryHierarchicalSoftmax>(in_size, to_tree(tree), dt);
             }),
             py::arg("in_size"), py::arg("tree"), py::arg("dtype") = py::none())
        .def("__call__", hsm, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>())
        .def("forward", hsm, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>(),
             "The summed loss (0-d) of ``x`` (N, in_size) against the word ids ``t`` (N,); a word that is not in the "
             "tree costs 0.")
        .def_static("create_huffman_tree", &create_huffman_tree, py::arg("word_counts"),
                    "Builds the Huffman tree of a dict from word to count, as nested 2-tuples whose leaves are the "
                    "words; repeatedly joins the two lightest trees. ValueError for an empty dict.");
}

}  // namespace rensa::python::links_detail
