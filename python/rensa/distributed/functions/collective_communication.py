"""chainermn.functions' differentiable collectives: bcast, gather, scatter, allgather, alltoall.

Forward is the communicator's array collective; backward is its adjoint, as in chainermn:
allgather's gradient is the sum over ranks of the all-to-all of the output grads (what each
rank's outputs contributed to this rank's input), alltoall's is the all-to-all of the grads,
bcast's is the sum of every rank's grad gathered at root, gather's is root's grads scattered
back, scatter's is every rank's grad gathered at root. A missing output grad counts as
zeros. Every rank must run the backward of each collective (the backward is collective too):
a rank whose loss does not depend on a collective's outputs reaches it through a delegate
variable (gather and scatter give one on the ranks that receive nothing) and
``pseudo_connect``.

Ranks that pass nothing (bcast's and scatter's non-root ranks) apply the function to an
empty dummy input that requires grad, so the node is in their graph and its backward runs.
"""
import numpy

from rensa import backend
from rensa import function_node
from rensa import variable


def _meta(arrays):
    """(shape, dtype, device) of each array: what a missing grad's zeros are made like."""
    return [(a.shape, a.dtype, backend.get_device_from_array(a)) for a in arrays]


def _zeros_for_missing(grads, like):
    """The grads' arrays, zeros made like ``like[i]`` (see _meta) where grads[i] is None."""
    return [device.send(numpy.zeros(shape, dtype)) if g is None else g.array
            for g, (shape, dtype, device) in zip(grads, like)]


def _sum(arrays):
    """The sum in order, as a Variable (through Variables, so device arrays add too)."""
    total = variable.Variable(arrays[0], requires_grad=False)
    for a in arrays[1:]:
        total = total + variable.Variable(a, requires_grad=False)
    return total


def _dummy_input():
    return variable.Variable(numpy.empty((0,), numpy.float32), requires_grad=True)


class AllGather(function_node.FunctionNode):
    """Every rank's x, in rank order, on every rank."""

    def __init__(self, comm):
        self.comm = comm

    def forward(self, inputs):
        """Returns every rank's ``x`` in rank order (one output per rank)."""
        x, = inputs
        ys = tuple(self.comm.allgather(x))
        self._outputs = _meta(ys)
        return ys

    def backward(self, indexes, grad_outputs):
        """Sends each output's grad back to the rank it came from (all-to-all) and sums what arrives."""
        gys = _zeros_for_missing(grad_outputs, self._outputs)
        return _sum(list(self.comm.alltoall(gys))),


class AllToAll(function_node.FunctionNode):
    """xs[j] to rank j; rank i's output j is what rank j sent to rank i."""

    def __init__(self, comm):
        self.comm = comm

    def forward(self, inputs):
        """Sends ``inputs[j]`` to rank ``j``; returns what each rank sent here, in rank order."""
        ys = tuple(self.comm.alltoall(list(inputs)))
        self._outputs = _meta(ys)
        return ys

    def backward(self, indexes, grad_outputs):
        """Sends each output's grad back to the rank it came from (the reverse all-to-all)."""
        gxs = self.comm.alltoall(_zeros_for_missing(grad_outputs, self._outputs))
        return tuple(variable.Variable(gxs[i]) for i in indexes)


class Bcast(function_node.FunctionNode):
    """Root's x on every rank (the others' input is an empty dummy)."""

    def __init__(self, comm, root):
        self.comm = comm
        self.root = root

    def forward(self, inputs):
        """Returns root's ``x`` on every rank."""
        x = inputs[0] if self.comm.rank == self.root else None
        y = self.comm.bcast(x, root=self.root)
        self._output = _meta([y])[0]
        return y,

    def backward(self, indexes, grad_outputs):
        """Gathers every rank's grad on root and sums them there; the others' dummy input gets an
        empty grad."""
        gy, = _zeros_for_missing(grad_outputs, [self._output])
        gys = self.comm.gather(gy, root=self.root)
        if self.comm.rank == self.root:
            return _sum(list(gys)),
        return variable.Variable(numpy.zeros((0,), numpy.float32)),


class Gather(function_node.FunctionNode):
    """Every rank's x, in rank order, on root; an empty delegate output elsewhere."""

    def __init__(self, comm, root):
        self.comm = comm
        self.root = root

    def forward(self, inputs):
        """Returns every rank's ``x`` in rank order on root, an empty delegate array elsewhere."""
        x, = inputs
        ys = self.comm.gather(x, root=self.root)
        if self.comm.rank == self.root:
            self._outputs = _meta(ys)
            return tuple(ys)
        return backend.get_device_from_array(x).send(numpy.empty((0,), x.dtype)),

    def backward(self, indexes, grad_outputs):
        """Scatters root's output grads back: each rank gets the grad of its own ``x``."""
        if self.comm.rank == self.root:
            gx = self.comm.scatter(_zeros_for_missing(grad_outputs, self._outputs), root=self.root)
        else:
            gx = self.comm.scatter(None, root=self.root)
        return variable.Variable(gx),


class Scatter(function_node.FunctionNode):
    """Root's xs[i] to rank i (the others' input is an empty dummy)."""

    def __init__(self, comm, root):
        self.comm = comm
        self.root = root

    def forward(self, inputs):
        """Returns root's ``inputs[i]`` on rank ``i``."""
        self._inputs = _meta(inputs)
        y = self.comm.scatter(list(inputs) if self.comm.rank == self.root else None, root=self.root)
        self._output = _meta([y])[0]
        return y,

    def backward(self, indexes, grad_outputs):
        """Gathers every rank's grad on root as the grads of its inputs; the others' dummy input
        gets a zero grad."""
        gy, = _zeros_for_missing(grad_outputs, [self._output])
        gxs = self.comm.gather(gy, root=self.root)
        if self.comm.rank == self.root:
            return tuple(variable.Variable(gxs[i]) for i in indexes)
        return tuple(variable.Variable(device.send(numpy.zeros(shape, dtype)))
                     for shape, dtype, device in (self._inputs[i] for i in indexes))


def _check_root(name, comm, root):
    if not 0 <= root < comm.size:
        raise ValueError('%s: Expect: 0 <= root < comm.size = %d, Actual: root = %d' % (name, comm.size, root))


def allgather(comm, x):
    """chainermn.functions.allgather: a tuple of comm.size Variables, rank i's x at i
    (shapes may differ by rank). Backward sums what every rank's outputs send back."""
    return AllGather(comm).apply((x,))


def alltoall(comm, xs):
    """chainermn.functions.alltoall: ``xs[j]`` (comm.size Variables) goes to rank j; returns
    a tuple of comm.size Variables, the one at j from rank j."""
    if len(xs) != comm.size:
        raise ValueError('alltoall: Expect: len(xs) == comm.size = %d, Actual: len(xs) = %d' % (comm.size, len(xs)))
    return AllToAll(comm).apply(tuple(xs))


def bcast(comm, x, root=0):
    """chainermn.functions.bcast: root's ``x`` on every rank (the others' ``x`` is ignored);
    backward sums every rank's grad into root's ``x``."""
    _check_root('bcast', comm, root)
    if comm.rank == root:
        if x is None:
            raise ValueError('bcast: Expect: a Variable on the root rank %d, Actual: None' % root)
        return Bcast(comm, root).apply((x,))[0]
    return Bcast(comm, root).apply((_dummy_input(),))[0]


def gather(comm, x, root=0):
    """chainermn.functions.gather: on root, a tuple of every rank's ``x`` in rank order; on the
    others, a tuple of one empty delegate Variable to start (or pseudo_connect) the backward
    from. Backward scatters root's grads back."""
    _check_root('gather', comm, root)
    return Gather(comm, root).apply((x,))


def scatter(comm, xs, root=0):
    """chainermn.functions.scatter: root's ``xs[i]`` (comm.size Variables) to rank i; the
    others pass None. Backward gathers every rank's grad into root's ``xs``."""
    _check_root('scatter', comm, root)
    if comm.rank == root:
        if xs is None or len(xs) != comm.size:
            raise ValueError('scatter: Expect: comm.size = %d Variables on the root rank, Actual: %s'
                             % (comm.size, 'None' if xs is None else '%d' % len(xs)))
        return Scatter(comm, root).apply(tuple(xs))[0]
    return Scatter(comm, root).apply((_dummy_input(),))[0]
