#pragma once
// Export of the graph reachable backward from some Variables as Graphviz DOT
// (Chainer's computational_graph.build_computational_graph(...).dump()).

#include <memory>
#include <string>
#include <vector>

#include "autograd/variable.h"

namespace rensa {

struct ComputationalGraphOptions {
    std::string rankdir = "TB";    // DOT's rankdir: TB, BT, LR or RL
    bool remove_variable = false;  // functions only, linked directly
    bool show_name = true;         // prefix variable labels with their names
};

// The function and variable nodes reachable backward from the outputs, and their edges.
class ComputationalGraph {
public:
    struct Edge {
        const void* from;
        const void* to;
    };

    ComputationalGraph(std::vector<std::shared_ptr<VariableNode>> variables,
                       std::vector<std::shared_ptr<FunctionNode>> functions, std::vector<Edge> edges,
                       ComputationalGraphOptions options);

    const std::vector<std::shared_ptr<VariableNode>>& variables() const { return variables_; }
    const std::vector<std::shared_ptr<FunctionNode>>& functions() const { return functions_; }
    const std::vector<Edge>& edges() const { return edges_; }
    // The graph in DOT: variables as ovals "name: (2, 3), float32", functions as boxes
    // with their label, edges input -> function -> output.
    std::string dump() const;

private:
    std::vector<std::shared_ptr<VariableNode>> variables_;
    std::vector<std::shared_ptr<FunctionNode>> functions_;
    std::vector<Edge> edges_;
    ComputationalGraphOptions options_;
};

// Walks the graph backward from `outputs` (iteratively; any depth).
[[nodiscard]] ComputationalGraph build_computational_graph(const std::vector<Variable>& outputs,
                                                           const ComputationalGraphOptions& options = {});

}  // namespace rensa
