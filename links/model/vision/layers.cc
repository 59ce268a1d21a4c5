#include "links/model/vision/layers.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/error.h"
#include "serializers/npz.h"

namespace rensa::links::vision {

std::vector<std::string> layer_names(const LayerTable& table) {
    std::vector<std::string> names;
    names.reserve(table.size());
    for (const LayerEntry& entry : table) names.push_back(entry.name);
    return names;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::ostringstream out;
    for (size_t i = 0; i < names.size(); ++i) out << (i == 0 ? "" : ", ") << names[i];
    return out.str();
}

}  // namespace

std::map<std::string, Variable> forward_layers(const std::string& op, const LayerTable& table, const Variable& x,
                                               const std::vector<std::string>& layers) {
    const std::vector<std::string> available = layer_names(table);
    std::set<std::string> targets;
    for (const std::string& name : layers) {
        RENSA_CHECK(std::find(available.begin(), available.end(), name) != available.end(), ValueError, op,
                    ": Expect: layers in available_layers (", joined(available), "), Actual: '", name, "'");
        targets.insert(name);
    }
    std::map<std::string, Variable> computed;  // every output so far: the sources of later entries
    std::map<std::string, Variable> activations;
    Variable h = x;
    for (const LayerEntry& entry : table) {
        if (targets.empty()) break;
        if (!entry.source.empty()) h = computed.at(entry.source);
        for (const auto& f : entry.functions) h = f(h);
        computed[entry.name] = h;
        if (targets.erase(entry.name) != 0) activations[entry.name] = h;
    }
    return activations;
}

void check_pretrained(const std::string& op, const std::string& pretrained_model) {
    if (pretrained_model.empty()) return;
    RENSA_CHECK(pretrained_model != "auto", ValueError, op,
                ": pretrained_model='auto' downloads the weights in Chainer, which rensa does not do; pass the path "
                "of a local NPZ (as chainer.serializers.save_npz writes it for Chainer's ",
                op, ") or None for a random initialisation");
    RENSA_CHECK(std::filesystem::is_regular_file(pretrained_model), IOError, op, ": pretrained_model '",
                pretrained_model,
                "' does not exist; pass the path of a local NPZ of the weights or None for a random initialisation");
}

void load_pretrained(Link& link, const std::string& op, const std::string& pretrained_model) {
    check_pretrained(op, pretrained_model);
    if (!pretrained_model.empty()) serializers::load_npz(pretrained_model, link);
}

}  // namespace rensa::links::vision
