"""chainermn.links.create_multi_node_n_step_rnn: a stacked RNN whose hidden states come from
one rank and go on to another (model parallelism across the layers' stack)."""
from rensa import link as _link
from rensa.distributed import functions


class _MultiNodeNStepRNN(_link.Chain):
    """Calls ``actual_rnn(*cells, *inputs)``; the cells (hx, or hx and cx) are received from
    ``rank_in`` when set, and the resulting cells are sent to ``rank_out`` when set. Returns
    the RNN's outputs followed by the delegate variable of the sends (None without
    ``rank_out``): start the backward from it (or pseudo_connect it)."""

    def __init__(self, link, communicator, rank_in, rank_out):
        super(_MultiNodeNStepRNN, self).__init__()
        n_cells = getattr(link, 'n_cells', None)
        if not isinstance(n_cells, int) or n_cells < 1:
            raise ValueError('create_multi_node_n_step_rnn: Expect: an NStep RNN link (NStepLSTM, NStepGRU, ... with '
                             'n_cells), Actual: %s' % type(link).__name__)
        with self.init_scope():
            self.actual_rnn = link
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = n_cells

    def forward(self, *inputs):
        cells = [None] * self.n_cells
        if self.rank_in is not None:
            cells = [functions.recv(self.communicator, rank=self.rank_in) for _ in range(self.n_cells)]
        outputs = tuple(self.actual_rnn(*(tuple(cells) + inputs)))
        cells = outputs[:self.n_cells]
        delegate_variable = None
        if self.rank_out is not None:
            # Each send's delegate is tied to the next cell, so one backward from the last
            # delegate receives every cell's grad (in reverse order on the receiving rank).
            cell = cells[0]
            for i in range(self.n_cells):
                delegate_variable = functions.send(cell, self.communicator, rank=self.rank_out)
                if i < self.n_cells - 1:
                    cell, = functions.pseudo_connect(delegate_variable, cells[i + 1])
        return outputs + (delegate_variable,)


def create_multi_node_n_step_rnn(actual_link, communicator, rank_in=None, rank_out=None):
    """chainermn.links.create_multi_node_n_step_rnn: ``actual_link`` (NStepLSTM, NStepGRU,
    NStepRNNTanh, ... and the Bi ones) receiving its initial cells from ``rank_in`` and sending
    its final cells to ``rank_out`` (each None for none). Its call returns the link's outputs
    plus a delegate variable (see _MultiNodeNStepRNN)."""
    return _MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)
