#pragma once
// What Chainer's pretrained vision models share (chainer.links.model.vision: VGGLayers,
// ResNetLayers, GoogLeNet): the ordered table of named layers their forward walks, and the
// loading of their weights from a local NPZ.
//
// Note [Pretrained vision models]: the models are C++ chains with Chainer's child names (so
// their NPZ keys are those chainer.serializers.save_npz writes for Chainer's models) and a
// C++ forward over Chainer's `functions` table; extract, predict and prepare (PIL images in,
// numpy out) are thin Python in python/rensa/links/model/vision, as they are image I/O
// around forward. Nothing is downloaded: pretrained_model names a local NPZ, "" (Python's
// None) keeps Chainer's random initialisation, and "auto" (Chainer's download) is resolved
// in Python to the NPZ Chainer would have cached under the dataset root, else refused.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograd/variable.h"
#include "links/link.h"

namespace rensa::links::vision {

// One named entry of a model's table: the functions applied in order to the previous
// entry's output, or to the output of the entry named `source` when it is not empty
// (GoogLeNet's auxiliary classifiers start from inception_4a / inception_4d).
struct LayerEntry {
    std::string name;
    std::vector<std::function<Variable(const Variable&)>> functions;
    std::string source{};
};
using LayerTable = std::vector<LayerEntry>;

// The entries' names, in order (Chainer's available_layers).
std::vector<std::string> layer_names(const LayerTable& table);

// Chainer's forward(x, layers): walks the table until every requested layer is computed and
// returns those outputs by name. `op` names the model in errors: ValueError for a name that
// is not in the table (listing the available ones).
std::map<std::string, Variable> forward_layers(const std::string& op, const LayerTable& table, const Variable& x,
                                               const std::vector<std::string>& layers);

// Checks `pretrained_model` before a model allocates its parameters: nothing for "", ValueError
// for "auto" (a download, which rensa does not do), IOError naming the path when no file is there.
void check_pretrained(const std::string& op, const std::string& pretrained_model);
// Loads `link` from the NPZ at `pretrained_model` (Chainer's npz.load_npz, strict; after
// check_pretrained's checks); nothing for "". load_npz's errors for a file that does not match.
void load_pretrained(Link& link, const std::string& op, const std::string& pretrained_model);

}  // namespace rensa::links::vision
