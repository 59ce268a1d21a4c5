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
    link_class<L::BatchRenormalization, L::BatchNormalization>(m, "BatchRenormalization")
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
        .def("forward", br_forward, py::arg("x"), py::arg("finetune") = false)
        .def_readwrite("rmax", &L::BatchRenormalization::rmax)
        .def_readwrite("dmax", &L::BatchRenormalization::dmax);
}

void bind_decorrelated_batch_normalization(py::module_& m) {
    using DBN = L::DecorrelatedBatchNormalization;
    const auto forward = [](DBN& self, const Variable& x, bool finetune) {
        return self.forward(x, L::BatchNormalizationForwardOptions{finetune});
    };
    link_class<DBN, L::Link>(m, "DecorrelatedBatchNormalization")
        .def(link_init<DBN>([](int64_t size, int64_t groups, double decay, double eps, py::handle dtype) {
                 return std::make_shared<DBN>(size, groups, decay, eps, to_dtype(dtype));
             }),
             py::arg("size"), py::arg("groups") = 16, py::arg("decay") = 0.9, py::arg("eps") = 2e-5,
             py::arg("dtype") = py::module_::import("numpy").attr("float32"))
        .def("__call__", forward, py::arg("x"), py::kw_only(), py::arg("finetune") = false)
        .def("forward", forward, py::arg("x"), py::kw_only(), py::arg("finetune") = false)
        .def("start_finetuning", &DBN::start_finetuning)
        .def_property(
            "avg_mean", [](const DBN& self) { return array_or_none(self.avg_mean); },
            [](DBN& self, py::handle v) { self.avg_mean = to_array(v); })
        .def_property(
            "avg_projection", [](const DBN& self) { return array_or_none(self.avg_projection); },
            [](DBN& self, py::handle v) { self.avg_projection = to_array(v); })
        .def_readwrite("N", &DBN::N)
        .def_readwrite("decay", &DBN::decay)
        .def_readwrite("eps", &DBN::eps)
        .def_readwrite("groups", &DBN::groups);
}

}  // namespace

void bind_normloss_links(py::module_& m) {
    bind_batch_renormalization(m);
    bind_decorrelated_batch_normalization(m);

    const auto black_out = [](L::BlackOut& self, const Variable& x, const Variable& t) { return self.forward(x, t); };
    link_class<L::BlackOut, L::Link>(m, "BlackOut")
        .def(link_init<L::BlackOut>([](int64_t in_size, const std::vector<double>& counts, int64_t sample_size) {
                 return std::make_shared<L::BlackOut>(in_size, counts, sample_size);
             }),
             py::arg("in_size"), py::arg("counts"), py::arg("sample_size"))
        .def("__call__", black_out, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>())
        .def("forward", black_out, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>())
        .def_readwrite("sample_size", &L::BlackOut::sample_size)
        // Chainer's test hook: negative samples used instead of drawing (None: draw).
        .def_property(
            "sample_data", [](const L::BlackOut& self) { return array_or_none(self.sample_data); },
            [](L::BlackOut& self, py::handle v) { self.sample_data = v.is_none() ? Array{} : to_array(v); });

    link_class<L::CRF1d, L::Link>(m, "CRF1d")
        .def(link_init<L::CRF1d>([](int64_t n_label, py::handle initial_cost) {
                 return std::make_shared<L::CRF1d>(n_label, to_initializer(initial_cost));
             }),
             py::arg("n_label"), py::arg("initial_cost") = py::none())
        .def("__call__", &crf_forward, py::arg("xs"), py::arg("ys"), py::arg("reduce") = "mean",
             py::arg("transpose") = false)
        .def("forward", &crf_forward, py::arg("xs"), py::arg("ys"), py::arg("reduce") = "mean",
             py::arg("transpose") = false)
        .def("argmax", &crf_argmax, py::arg("xs"), py::arg("transpose") = false);

    const auto hsm = [](L::BinaryHierarchicalSoftmax& self, const Variable& x, const Variable& t) {
        return self.forward(x, t);
    };
    link_class<L::BinaryHierarchicalSoftmax, L::Link>(m, "BinaryHierarchicalSoftmax")
        .def(link_init<L::BinaryHierarchicalSoftmax>([](int64_t in_size, py::handle tree, py::handle dtype) {
                 const Dtype dt = dtype.is_none() ? config().dtype : to_dtype(dtype);  // chainer.get_dtype
                 return std::make_shared<L::BinaryHierarchicalSoftmax>(in_size, to_tree(tree), dt);
             }),
             py::arg("in_size"), py::arg("tree"), py::arg("dtype") = py::none())
        .def("__call__", hsm, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>())
        .def("forward", hsm, py::arg("x"), py::arg("t"), py::call_guard<py::gil_scoped_release>())
        .def_static("create_huffman_tree", &create_huffman_tree, py::arg("word_counts"));
}

}  // namespace rensa::python::links_detail
