#include "autograd/variable.h"

#include <unordered_set>
#include <utility>
#include <vector>

#include "autograd/backprop_engine.h"
#include "autograd/function_node.h"
#include "autograd/live_count.h"
#include "core/error.h"
#include "core/ops/creation.h"

namespace rensa {

// Note [Iterative graph release]: the graph is a chain of owning pointers,
// VariableNode -> creator FunctionNode -> input VariableNodes -> their creators ...
// Destroying the last handle on a chain of a million functions would recurse a
// million levels deep through the destructors and overflow the stack. So a
// VariableNode never destroys its creator directly: it hands the pointer to
// release_function, which keeps a per-thread list of pending releases and drains it
// in a loop. Destroying a function destroys its input nodes, which only append their
// creators to the list; the stack depth stays constant whatever the graph's depth.
namespace detail {
namespace {
thread_local bool t_pending_destroyed = false;  // trivially destructible: readable during thread exit
struct PendingReleases {
    std::vector<std::shared_ptr<FunctionNode>> list;
    bool draining = false;
    ~PendingReleases() { t_pending_destroyed = true; }
};
}  // namespace

void release_function(std::shared_ptr<FunctionNode>&& function) {
    if (!function) return;
    if (t_pending_destroyed) {  // a graph outliving this thread's list (static destruction): drop directly
        function.reset();
        return;
    }
    thread_local PendingReleases pending;
    pending.list.push_back(std::move(function));
    if (pending.draining) return;  // an outer call on this thread is draining the list
    pending.draining = true;
    while (!pending.list.empty()) {
        std::shared_ptr<FunctionNode> next = std::move(pending.list.back());
        pending.list.pop_back();
        next.reset();  // may append more functions to the list
    }
    pending.draining = false;
}
}  // namespace detail

namespace {
void check_grad_matches(const Array& array, const Array& grad, const char* what = "Variable.grad: a gradient") {
    RENSA_CHECK(grad.shape() == array.shape(), DimensionError, what, " of shape ", grad.shape(),
                " does not match the variable's shape ", array.shape());
    RENSA_CHECK(grad.dtype() == array.dtype(), DtypeError, what, " of dtype ", grad.dtype(),
                " does not match the variable's dtype ", array.dtype());
}
}  // namespace

// --- VariableNode ---

VariableNode::VariableNode(const Array& array, bool requires_grad, std::string name)
    : shape_{array.shape()},
      dtype_{array.dtype()},
      device_{array.device()},
      requires_grad_{requires_grad},
      name_{std::move(name)} {
    detail::add_live(detail::LiveKind::kVariable, 1);
}

VariableNode::~VariableNode() {
    detail::release_function(std::move(creator_));  // See Note [Iterative graph release]
    detail::add_live(detail::LiveKind::kVariable, -1);
}

int64_t VariableNode::live_count() { return detail::live_total(detail::LiveKind::kVariable); }

void VariableNode::set_creator(std::shared_ptr<FunctionNode> creator) {
    rank_ = creator ? creator->rank() + 1 : 0;
    std::swap(creator_, creator);
    detail::release_function(std::move(creator));  // the previous creator
}

void VariableNode::update_data_info(const Array& array) {
    shape_ = array.shape();
    dtype_ = array.dtype();
    device_ = array.device();
    if (retained_data_.defined()) retained_data_ = array;
}

Variable VariableNode::get_variable_or_none() const { return Variable(variable_.lock()); }

Variable VariableNode::get_variable(const Array& fallback) {
    if (std::shared_ptr<VariableData> alive = variable_.lock()) return Variable(std::move(alive));
    const Array& array = fallback.defined() ? fallback : retained_data_;
    RENSA_CHECK(array.defined(), ValueError, "VariableNode.get_variable: the variable of node '", name_,
                "' is gone and its data was not retained");
    auto data = std::make_shared<VariableData>();
    data->array = array;
    // The node (and so the graph position) is shared: grads flowing through the new
    // variable reach the same creator. Later lookups find this variable while it lives.
    data->node = shared_from_this();
    variable_ = data;
    return Variable(std::move(data));
}

// --- Variable ---

// Note [Lazy variable nodes]: an output of a function that recorded no graph (backprop
// off, or no input requiring grad: every op inside a backward that is not recorded, and
// all of inference) is a Variable whose VariableNode would only carry its metadata. It
// gets none at first: VariableData::node stays null and VariableData::requires_grad holds
// the flag, and node() makes the node when someone asks for it (a later function using
// the variable in a graph, the Python `node` attribute, retain_data, set_name). The
// accessors that only read the node (requires_grad, name, creator, rank) answer without
// making it. This saves an allocation and its reference-count updates per unrecorded output.
// Making the node mutates the shared VariableData, like set_grad: two threads must not
// use one Variable at once (as before).
Variable Variable::without_node(Array array, bool requires_grad) {
    Variable v(std::make_shared<VariableData>());
    v.data_->array = std::move(array);
    v.data_->requires_grad = requires_grad;
    return v;
}

Variable::Variable(Array array, bool requires_grad, std::string name) : data_{std::make_shared<VariableData>()} {
    RENSA_CHECK(array.defined(), ValueError, "Variable: the array is undefined");
    data_->requires_grad = requires_grad;
    data_->node = std::make_shared<VariableNode>(array, requires_grad, std::move(name));
    data_->node->variable_ = data_;
    data_->array = std::move(array);
}

Variable Variable::without_array(bool requires_grad, std::string name) {
    Variable v(std::make_shared<VariableData>());
    v.data_->requires_grad = requires_grad;
    v.data_->node = std::make_shared<VariableNode>(Array{}, requires_grad, std::move(name));
    v.data_->node->variable_ = v.data_;
    return v;
}

VariableData& Variable::data() const {
    RENSA_CHECK(data_ != nullptr, ValueError, "Variable: the variable is undefined (None)");
    return *data_;
}

const Array& Variable::array() const { return data().array; }

void Variable::set_array(Array array) const {
    RENSA_CHECK(array.defined(), ValueError, "Variable.array: the array is undefined");
    if (const std::shared_ptr<VariableNode>& node = data().node) node->update_data_info(array);
    data_->array = std::move(array);
}

Array Variable::grad() const {
    const Variable& g = data().grad;
    return g.defined() ? g.array() : Array{};
}

const Variable& Variable::grad_var() const { return data().grad; }

void Variable::set_grad(const Array& grad) const { set_grad_var(grad.defined() ? Variable(grad, false) : Variable{}); }

void Variable::set_grad_var(const Variable& grad) const {
    if (grad.defined()) check_grad_matches(array(), grad.array());
    data().grad = grad;
}

void Variable::cleargrad() const { data().grad = Variable{}; }

void Variable::retain_data() const { node()->retained_data_ = array(); }  // makes the node when lazy

void Variable::zerograd() const { data().grad = Variable(ops::zeros_like(array()), false); }

std::optional<double> Variable::loss_scale() const { return data().loss_scale; }

void Variable::set_grad_destination(const Array& destination) const {
    if (destination.defined()) {
        check_grad_matches(array(), destination, "Variable.grad_destination: a destination");
        check_writeable(destination, "Variable.grad_destination");
        RENSA_CHECK(destination.device() == array().device(), DeviceError,
                    "Variable.grad_destination: a destination on ", destination.device(), " for a variable on ",
                    array().device());
        detail::note_grad_destinations_in_use();
    }
    data().grad_destination = destination;
}

const Array& Variable::grad_destination() const { return data().grad_destination; }

bool Variable::requires_grad() const {
    const VariableData& d = data();
    return d.node ? d.node->requires_grad() : d.requires_grad;
}

const std::string& Variable::name() const {
    static const std::string kNoName;
    const VariableData& d = data();
    return d.node ? d.node->name() : kNoName;
}

void Variable::set_name(std::string name) const { node()->name_ = std::move(name); }

const std::shared_ptr<VariableNode>& Variable::node() const {
    VariableData& d = data();
    if (!d.node) [[unlikely]] {  // See Note [Lazy variable nodes]
        d.node = std::make_shared<VariableNode>(d.array, d.requires_grad, std::string{});
        d.node->variable_ = data_;
    }
    return d.node;
}

const std::shared_ptr<FunctionNode>& Variable::creator() const {
    static const std::shared_ptr<FunctionNode> kNone;
    const VariableData& d = data();
    return d.node ? d.node->creator() : kNone;
}

int64_t Variable::rank() const {
    const VariableData& d = data();
    return d.node ? d.node->rank() : 0;
}

void Variable::unchain() const {
    if (const std::shared_ptr<VariableNode>& node = data().node) node->set_creator(nullptr);
}

void Variable::unchain_backward() const {
    std::vector<std::shared_ptr<FunctionNode>> stack;
    std::unordered_set<const FunctionNode*> seen;
    auto add_candidate = [&](const std::shared_ptr<FunctionNode>& f) {
        if (f && seen.insert(f.get()).second) stack.push_back(f);
    };
    add_candidate(creator());
    while (!stack.empty()) {
        std::shared_ptr<FunctionNode> f = std::move(stack.back());
        stack.pop_back();
        for (const auto& input : f->inputs()) add_candidate(input->creator());
        f->unchain();
        detail::release_function(std::move(f));
    }
}

void Variable::to_device(Device device) const {
    VariableData& d = data();
    if (d.array.device() == device) return;
    set_array(d.array.to_device(device));
    if (d.grad.defined()) d.grad = Variable(d.grad.array().to_device(device), false);
}

void Variable::backward(const BackwardOptions& options) const { rensa::backward({*this}, {}, options); }

}  // namespace rensa
