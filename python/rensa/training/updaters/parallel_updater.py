"""chainer.training.updaters.ParallelUpdater: one model copy per device, gradients summed
into the master's, in one process.

As Chainer: the batch is dealt round-robin (``batch[i::n]``) to the n models, each computes
its loss on its device, the gradients of the copies are added to the master's
(``addgrads``), the optimizer updates the master and the copies take its parameters back
(``copyparams``). Each loss is its sub-batch's, so the summed gradient is n times the
full-batch mean's; with a sum-reduced loss it is the full batch's exactly.
"""
from rensa import backend
from rensa import force_backprop_mode
from rensa import reporter as reporter_module
from rensa.dataset import convert
from rensa._core.training.updaters import StandardUpdater

__all__ = ['ParallelUpdater']


def call_loss(loss_func, in_arrays):
    if isinstance(in_arrays, tuple):
        return loss_func(*in_arrays)
    if isinstance(in_arrays, dict):
        return loss_func(**in_arrays)
    return loss_func(in_arrays)


class ParallelUpdater(StandardUpdater):
    """``models``: dict name -> link with 'main' the optimizer's target, or None to copy the
    target once per entry of ``devices`` (dict name -> device, with a 'main' key; any device
    rensa accepts: -1, '@numpy', 'native:0', '@cupy:0', ...)."""

    def __init__(self, iterator, optimizer, converter=convert.concat_examples, models=None, devices=None,
                 loss_func=None, loss_scale=None, auto_new_epoch=True):
        super().__init__(iterator=iterator, optimizer=optimizer, converter=converter, loss_func=loss_func,
                         loss_scale=loss_scale, auto_new_epoch=auto_new_epoch)
        if models is None:
            if devices is None:
                raise ValueError('ParallelUpdater: either models or devices must be specified')
            if 'main' not in devices:
                raise KeyError("ParallelUpdater: 'devices' must contain a 'main' key, got %s" % sorted(devices))
            target = optimizer.target
            models = {'main': target}
            for name in devices:
                if name != 'main':
                    model = target.copy(mode='copy')  # Chainer's copy.deepcopy of the target
                    model.to_device(backend.get_device(devices[name]))
                    models[name] = model
            target.to_device(backend.get_device(devices['main']))
        elif 'main' not in models:
            raise KeyError("ParallelUpdater: 'models' must contain a 'main' key, got %s" % sorted(models))
        if devices is None:
            devices = {name: None for name in models}
        missing = [name for name in models if name not in devices]
        if missing:
            raise KeyError('ParallelUpdater: no device for the models %s' % missing)
        self._devices = devices
        self._models = models
        self.loss_scale = loss_scale
        self._observed_by = []

    def connect_trainer(self, trainer):
        """Registers the copies with the trainer's reporter under their names."""
        self._add_observers(trainer.reporter)

    def _add_observers(self, reporter):
        # Note [Observers of model copies]: Chainer registers the copies in connect_trainer,
        # which rensa's C++ Trainer calls on the C++ base only; so update_core registers
        # them with the reporter in scope (the trainer's, during trainer.run()) the first
        # time it sees that reporter, before any copy reports.
        if any(r is reporter for r in self._observed_by):
            return
        main = self.get_optimizer('main').target
        for name, model in self._models.items():
            if model is not main:
                reporter.add_observer(name, model)
        self._observed_by.append(reporter)

    def _current_reporter(self):
        try:
            return reporter_module.get_current_reporter()
        except Exception:  # noqa: BLE001 (no reporter in scope: nothing reports then)
            return None

    def update_core(self):
        """One step: deals the batch round-robin to the models, computes each loss on its device,
        adds the copies' gradients into the master's, updates the master with the ``'main'``
        optimizer and copies its parameters back to the copies."""
        optimizer = self.get_optimizer('main')
        model_main = optimizer.target
        others = {k: v for k, v in self._models.items() if v is not model_main}
        iterator = self.get_iterator('main')
        batch = iterator.next()
        current = self._current_reporter()
        if current is not None and others:
            self._add_observers(current)

        n = len(self._models)
        in_arrays = {key: self.converter(batch[i::n], self._devices[key]) for i, key in enumerate(self._models)}
        for model in self._models.values():
            model.cleargrads()
        with force_backprop_mode():
            losses = [call_loss(self.loss_func or model, in_arrays[key]) for key, model in self._models.items()]
        for model in self._models.values():
            model.cleargrads()
        for loss in losses:  # scaled as the optimizer will unscale (its scale may be dynamic)
            loss.backward(loss_scale=optimizer._loss_scale)
        for model in others.values():
            model_main.addgrads(model)
        optimizer.update()
        for model in others.values():
            model.copyparams(model_main)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch()
