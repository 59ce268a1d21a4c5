#include "autograd/computational_graph.h"

#include <sstream>
#include <unordered_set>

#include "autograd/function_node.h"
#include "core/error.h"

namespace rensa {

namespace {

struct GraphWalk {
    std::vector<std::shared_ptr<VariableNode>> variables;
    std::vector<std::shared_ptr<FunctionNode>> functions;
    std::vector<ComputationalGraph::Edge> edges;
    std::unordered_set<const void*> seen;
    std::vector<std::shared_ptr<FunctionNode>> stack;

    void add_variable(const std::shared_ptr<VariableNode>& node) {
        if (!seen.insert(node.get()).second) return;
        variables.push_back(node);
        if (const auto& creator = node->creator()) add_function(creator);
    }
    void add_function(const std::shared_ptr<FunctionNode>& f) {
        if (!seen.insert(f.get()).second) return;
        functions.push_back(f);
        stack.push_back(f);
    }
    // Visits one function: its inputs (pushing their creators) and its living outputs.
    void expand(const std::shared_ptr<FunctionNode>& f) {
        for (const auto& x : f->inputs()) {
            edges.push_back({x.get(), f.get()});
            add_variable(x);
        }
        for (const auto& out : f->outputs()) {
            const auto y = out.lock();
            if (!y || y->creator() != f) continue;
            edges.push_back({f.get(), y.get()});
            if (seen.insert(y.get()).second) variables.push_back(y);
        }
    }
};

// Function-to-function edges through each variable (remove_variable).
std::vector<ComputationalGraph::Edge> skip_variables(const std::vector<ComputationalGraph::Edge>& edges,
                                                     const std::unordered_set<const void*>& functions) {
    std::vector<ComputationalGraph::Edge> result;
    for (const auto& in : edges) {
        if (!functions.count(in.from)) continue;  // in: function -> variable
        for (const auto& out : edges) {
            if (out.from == in.to) result.push_back({in.from, out.to});
        }
    }
    return result;
}

std::string variable_label(const VariableNode& node, bool show_name) {
    std::ostringstream os;
    if (show_name && !node.name().empty()) os << node.name() << ": ";
    os << node.shape() << ", " << node.dtype();
    return os.str();
}

std::string dot_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

}  // namespace

ComputationalGraph::ComputationalGraph(std::vector<std::shared_ptr<VariableNode>> variables,
                                       std::vector<std::shared_ptr<FunctionNode>> functions, std::vector<Edge> edges,
                                       ComputationalGraphOptions options)
    : variables_{std::move(variables)},
      functions_{std::move(functions)},
      edges_{std::move(edges)},
      options_{std::move(options)} {}

std::string ComputationalGraph::dump() const {
    std::ostringstream os;
    os << "digraph graphname{rankdir=" << options_.rankdir << ";\n";
    if (!options_.remove_variable) {
        for (const auto& v : variables_) {
            os << reinterpret_cast<uintptr_t>(v.get()) << " [label=\""
               << dot_escape(variable_label(*v, options_.show_name)) << "\",shape=\"oval\"];\n";
        }
    }
    for (const auto& f : functions_) {
        os << reinterpret_cast<uintptr_t>(f.get()) << " [label=\"" << dot_escape(f->label())
           << "\",shape=\"record\"];\n";
    }
    for (const Edge& e : edges_) {
        os << reinterpret_cast<uintptr_t>(e.from) << " -> " << reinterpret_cast<uintptr_t>(e.to) << ";\n";
    }
    os << "}\n";
    return os.str();
}

ComputationalGraph build_computational_graph(const std::vector<Variable>& outputs,
                                             const ComputationalGraphOptions& options) {
    GraphWalk walk;
    for (const Variable& y : outputs) {
        RENSA_CHECK(y.defined(), ValueError, "build_computational_graph: an output is an undefined Variable");
        walk.add_variable(y.node());
    }
    while (!walk.stack.empty()) {
        const std::shared_ptr<FunctionNode> f = std::move(walk.stack.back());
        walk.stack.pop_back();
        walk.expand(f);
    }
    if (options.remove_variable) {
        std::unordered_set<const void*> functions;
        for (const auto& f : walk.functions) functions.insert(f.get());
        walk.edges = skip_variables(walk.edges, functions);
    }
    return ComputationalGraph(std::move(walk.variables), std::move(walk.functions), std::move(walk.edges), options);
}

}  // namespace rensa
