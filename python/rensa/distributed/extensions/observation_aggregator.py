"""chainermn.extensions.ObservationAggregator: an observation summarised over the ranks."""
import numpy

from rensa import reporter
from rensa.training import extension
from rensa.training import triggers


def _mean_of_all(histories):
    """The mean of every value every rank observed since the last communication."""
    values = [v for history in histories for v in history]
    return sum(values) / len(values)


class ObservationAggregator(extension.Extension):
    """Each iteration records this rank's ``trainer.observation[original_key]``; when
    ``comm_trigger`` fires, every rank's records are gathered on rank 0, summarised by
    ``aggregator`` (a function of the list of each rank's list of values; default: the mean
    of them all) and broadcast, and the summary is reported as ``aggregated_key`` (default:
    ``original_key``, replacing it) on every rank. Collective when ``comm_trigger`` fires: add
    it on every rank with the same triggers.
    """

    trigger = 1, 'iteration'
    priority = extension.PRIORITY_EDITOR
    name = None

    def __init__(self, comm, original_key, aggregated_key=None, *, comm_trigger=(1, 'iteration'), aggregator=None):
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = original_key if aggregated_key is None else aggregated_key
        self.comm_trigger = triggers.get_trigger(comm_trigger)
        self.observation_history = []
        self.aggregator = aggregator or _mean_of_all

    def compute_summary(self, trainer):
        """The summary when the communication trigger fires (collective then), else None."""
        observation = trainer.observation
        if self.original_key in observation:
            value = observation[self.original_key]
            self.observation_history.append(value.array if hasattr(value, 'array') else numpy.asarray(value))
        if not self.comm_trigger(trainer):
            return None
        histories = self.comm.gather_obj(self.observation_history)
        self.observation_history = []
        summary = None
        if self.comm.rank == 0 and any(histories):
            summary = self.aggregator(histories)
        return self.comm.bcast_obj(summary, root=0)

    def __call__(self, trainer):
        summary = self.compute_summary(trainer)
        if summary is not None:
            reporter.report({self.aggregated_key: summary})
