"""chainer.training.extensions.PlotReport: a PNG line chart of observed values (matplotlib)."""
import json
import os
import tempfile

from rensa._core.training import DictSummary
from rensa._core.training.triggers import get_trigger
from rensa.training.extension import Extension

_available = None


def _try_import_matplotlib():
    global _available
    if _available is None:
        try:
            # Figure + the Agg canvas directly: no pyplot, so the user's backend is untouched
            # and drawing works without a display.
            import matplotlib.figure  # noqa: F401
            import matplotlib.backends.backend_agg  # noqa: F401
            _available = True
        except ImportError:
            _available = False
    return _available


class PlotReport(Extension):
    """Plots ``y_keys`` against ``x_key`` ('iteration', 'epoch' or an observed key) into
    ``<out>/<filename>`` each time ``trigger`` fires, like Chainer's PlotReport."""

    def __init__(self, y_keys, x_key='iteration', trigger=(1, 'epoch'),
                 postprocess=None, filename=None, marker='x', grid=True, **kwargs):
        file_name = kwargs.pop('file_name', 'plot.png')
        if kwargs:
            raise TypeError('PlotReport: unexpected keyword arguments {}'.format(sorted(kwargs)))
        if filename is None:
            filename = file_name
        self._x_key = x_key
        if isinstance(y_keys, str):
            y_keys = (y_keys,)
        self._y_keys = tuple(y_keys)
        self._trigger = get_trigger(trigger)
        self._file_name = filename
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._summary = DictSummary()
        self._data = {k: [] for k in self._y_keys}

    trigger = 1, 'iteration'

    @staticmethod
    def available():
        """True when matplotlib can be imported."""
        return _try_import_matplotlib()

    def __call__(self, trainer):
        observation = trainer.observation
        self._summary.add({k: observation[k] for k in self._y_keys if k in observation})
        # As Chainer: a call before training (call_before_training=True) plots a point of its
        # own at iteration 0, instead of folding the untrained values into the first point.
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        stats = dict(self._summary.compute_mean())
        updater = trainer.updater
        stats['epoch'] = updater.epoch
        stats['iteration'] = updater.iteration
        if self._x_key not in stats:
            raise KeyError('PlotReport: x_key {!r} is neither epoch, iteration nor observed '
                           '(observed: {})'.format(self._x_key, sorted(stats)))
        x = stats[self._x_key]
        for k in self._y_keys:
            if k in stats:
                self._data[k].append((x, stats[k]))
        if _try_import_matplotlib() and any(self._data.values()):
            self._draw(trainer)
        self._summary = DictSummary()

    def _draw(self, trainer):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        fig = Figure()
        FigureCanvasAgg(fig)
        axes = fig.add_subplot(111)
        axes.set_xlabel(self._x_key)
        if self._grid:
            axes.grid()
        for k in self._y_keys:
            xy = self._data[k]
            if not xy:
                continue
            axes.plot([p[0] for p in xy], [p[1] for p in xy], marker=self._marker, label=k)
        if not axes.has_data():
            return
        if self._postprocess is not None:
            self._postprocess(fig, axes, self._summary)
        legend = axes.legend(bbox_to_anchor=(1.05, 1), loc='upper left', borderaxespad=0.)
        # Written beside the target, then renamed: a reader never sees half a PNG.
        fd, tmp = tempfile.mkstemp(prefix='tmp' + self._file_name, dir=trainer.out)
        try:
            with os.fdopen(fd, 'wb') as f:
                fig.savefig(f, format='png', bbox_extra_artists=(legend,), bbox_inches='tight')
            os.replace(tmp, os.path.join(trainer.out, self._file_name))
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise

    def serialize(self, serializer):
        """Saves or loads the plotted points (as JSON) and the trigger's state through ``serializer``."""
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['_trigger'])
        key = '_plot_{}'.format(self._file_name)
        if serializer.is_loading:
            text = serializer(key, '')
            if text:
                self._data = {k: [tuple(p) for p in v] for k, v in json.loads(text).items()}
        else:
            serializer(key, json.dumps(self._data))
