"""chainer.training.updaters.MultiprocessParallelUpdater: one process per device, each with
its own iterator and model copy; gradients summed into the master, parameters sent back.

Chainer's version needs NCCL and GPUs. This one works over any devices rensa has: the
workers are forked (the model and the iterators are inherited; See Note [OpenMP after
fork]) and exchange gradients and parameters through shared memory, so on the CPU it runs
over native devices ('@numpy', -1, 'native:0').

See Note [Gradient exchange through shared memory].
"""
import atexit
import multiprocessing
import traceback
import warnings

import numpy

from rensa import _forked
from rensa import backend
from rensa import force_backprop_mode
from rensa import reporter as reporter_module
from rensa.dataset import convert
from rensa._core.training.updaters import StandardUpdater
from rensa.training.updaters.parallel_updater import call_loss

# Note [Gradient exchange through shared memory]: each step the master sends 'update'; every
# worker fetches its own batch, runs forward and backward, writes its gradients (every
# parameter in sorted-name order, float64, zeros for a missing gradient) into its own block,
# and answers. The master adds the blocks to its own gradients in worker order (Chainer's
# NCCL sum to rank 0), updates, writes the parameters into one block and sends 'params';
# the workers copy them before reading their next message, and the master writes that block
# again only after every worker answered the next 'update', so no block is read while it is
# written. As Chainer, the constructor divides lr (or scales eps) by the number of devices,
# so the update equals one device's on the concatenated batches.

__all__ = ['MultiprocessParallelUpdater']


def _params(model):
    return [p for _, p in sorted(model.namedparams())]


def _host(array):
    return numpy.asarray(backend.CpuDevice().send(array))


def _assign(param, attr, value):
    current = getattr(param, attr)
    if isinstance(current, numpy.ndarray) and current.flags.writeable:
        current[...] = value
    else:
        device = backend.get_device_from_array(param.array)
        setattr(param, attr, device.send(numpy.ascontiguousarray(value, dtype=param.dtype)))


def _write(params, block, attr):
    view = numpy.frombuffer(block, dtype=numpy.float64)
    offset = 0
    for p in params:
        value = getattr(p, attr)
        size = p.array.size
        view[offset:offset + size] = 0. if value is None else _host(value).reshape(-1)
        offset += size


def _read(params, block, attr):
    view = numpy.frombuffer(block, dtype=numpy.float64)
    offset = 0
    for p in params:
        size = p.array.size
        _assign(p, attr, view[offset:offset + size].reshape(p.array.shape))
        offset += size


def _worker_main(proc_id, pipe, updater):
    _forked.single_threaded_after_fork()
    model, device = updater._master, updater._devices[proc_id]
    iterator = updater._mpu_iterators[proc_id]
    model.to_device(device)
    reporter = reporter_module.Reporter()
    reporter.add_observer('main', model)
    reporter.add_observers('main', model.namedlinks(skipself=True))
    params = _params(model)
    while True:
        try:
            job = pipe.recv()
        except EOFError:  # the master is gone
            break
        if job == 'finalize':
            break
        try:
            if job == 'update':
                model.cleargrads()
                batch = updater.converter(iterator.next(), device)
                with reporter.scope({}), force_backprop_mode():
                    loss = call_loss(model, batch)
                model.cleargrads()
                loss.backward()
                del loss
                _write(params, updater._grad_blocks[proc_id - 1], 'grad')
            elif job == 'params':
                _read(params, updater._param_block, 'array')
                continue
            pipe.send(None)
        except Exception:  # noqa: BLE001 (reported to the master, which raises it)
            pipe.send('worker %d (device %s):\n%s' % (proc_id, device, traceback.format_exc()))
            break  # out of step with the master from here on


class MultiprocessParallelUpdater(StandardUpdater):
    """``iterators``: one per device (the first is the master's); ``devices``: a list (the
    first is the master's) or a dict with a 'main' key, of devices rensa accepts."""

    def __init__(self, iterators, optimizer, converter=convert.concat_examples, devices=None, auto_new_epoch=True):
        devices = self._device_list(devices)
        if len(iterators) != len(devices):
            raise ValueError('MultiprocessParallelUpdater: Expect: one iterator per device, Actual: %d iterators '
                             'for %d devices' % (len(iterators), len(devices)))
        for it in iterators[1:]:
            if len(it.dataset) != len(iterators[0].dataset):
                raise ValueError('MultiprocessParallelUpdater: Expect: datasets of the same length, Actual: %d and %d'
                                 % (len(iterators[0].dataset), len(it.dataset)))
        self._scale_hyperparameters(optimizer, len(devices))
        super().__init__(iterator=iterators[0], optimizer=optimizer, converter=converter,
                         auto_new_epoch=auto_new_epoch)
        self._master = optimizer.target
        self._devices = [backend.get_device(d) for d in devices]
        self._mpu_iterators = iterators
        self._initialized = False
        self._pipes = []
        self._workers = []

    @staticmethod
    def available():
        """Always: the workers exchange through shared memory on any device."""
        return True

    @staticmethod
    def _device_list(devices):
        if isinstance(devices, dict):
            if 'main' not in devices:
                raise KeyError("MultiprocessParallelUpdater: 'devices' must contain a 'main' key, got %s"
                               % sorted(devices))
            devices = [devices['main']] + [d for k, d in devices.items() if k != 'main']
        elif isinstance(devices, (list, tuple)):
            devices = list(devices)
        else:
            raise ValueError('MultiprocessParallelUpdater: Expect: devices as a dict, list or tuple, Actual: %s'
                             % type(devices).__name__)
        if not devices or any(d is None for d in devices):
            raise ValueError('MultiprocessParallelUpdater: Expect: a device for every process, Actual: %s' % devices)
        return devices

    @staticmethod
    def _scale_hyperparameters(optimizer, n):
        name = type(optimizer).__name__
        if name in ('Adam', 'AdaGrad', 'RMSprop'):
            optimizer.eps *= n
            warnings.warn('optimizer.eps is changed to {} by MultiprocessParallelUpdater for new batch size.'
                          .format(optimizer.eps))
        elif name in ('RMSpropGraves', 'AdaDelta'):
            optimizer.eps *= n ** 2
            warnings.warn('optimizer.eps is changed to {} by MultiprocessParallelUpdater for new batch size.'
                          .format(optimizer.eps))
        elif hasattr(optimizer, 'lr'):
            optimizer.lr /= n
            warnings.warn('optimizer.lr is changed to {} by MultiprocessParallelUpdater for new batch size.'
                          .format(optimizer.lr))

    def setup_workers(self):
        """Moves the master to its device and forks one worker per other device."""
        if self._initialized:
            return
        self._master.to_device(self._devices[0])
        self._master.cleargrads()
        params = _params(self._master)
        if any(p.array is None for p in params):
            raise ValueError('MultiprocessParallelUpdater: the model has uninitialized parameters %s; give their '
                             'shapes (e.g. in_size) or run one forward pass first'
                             % [n for n, p in sorted(self._master.namedparams()) if p.array is None])
        size = max(1, sum(p.array.size for p in params))
        context = multiprocessing.get_context('fork')
        self._param_block = context.RawArray('d', size)
        self._grad_blocks = [context.RawArray('d', size) for _ in self._devices[1:]]
        self._initialized = True
        for i in range(1, len(self._devices)):
            pipe, worker_end = context.Pipe()
            # Not a daemon, so that its iterator may have workers too (MultiprocessIterator).
            worker = context.Process(target=_worker_main, args=(i, worker_end, self))
            worker.start()
            self._workers.append(worker)
            self._pipes.append(pipe)
        # Runs before multiprocessing's own exit handler, which would wait for the workers.
        atexit.register(_stop_workers, self._pipes, self._workers)

    def _collect(self):
        errors = []
        for pipe, worker in zip(self._pipes, self._workers):
            try:
                answer = pipe.recv()
            except EOFError:
                answer = 'worker pid %d exited with code %s' % (worker.pid, worker.exitcode)
            if answer is not None:
                errors.append(answer)
        if errors:
            raise RuntimeError('MultiprocessParallelUpdater.update: a worker failed:\n' + '\n'.join(errors))

    def update_core(self):
        """One step: each worker computes the gradients of its own batch while the master computes
        its own; the workers' gradients are summed into the master's through shared memory, the
        ``'main'`` optimizer updates the master and the workers take its parameters back. Starts the
        workers on the first call; RuntimeError when a worker failed."""
        self.setup_workers()
        for pipe in self._pipes:
            pipe.send('update')
        optimizer = self.get_optimizer('main')
        iterator = self.get_iterator('main')
        self._master.cleargrads()
        batch = self.converter(iterator.next(), self._devices[0])
        with force_backprop_mode():
            loss = call_loss(self._master, batch)
        self._master.cleargrads()
        loss.backward(loss_scale=optimizer._loss_scale)
        del loss
        self._collect()
        params = _params(self._master)
        if self._pipes:
            self._sum_grads(params)
        optimizer.update()
        if self._pipes:
            _write(params, self._param_block, 'array')
            for pipe in self._pipes:
                pipe.send('params')
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch()

    def _sum_grads(self, params):
        offset = 0
        blocks = [numpy.frombuffer(b, dtype=numpy.float64) for b in self._grad_blocks]
        for p in params:
            size = p.array.size
            total = numpy.zeros(size) if p.grad is None else _host(p.grad).reshape(-1).astype(numpy.float64)
            for block in blocks:
                total += block[offset:offset + size]
            _assign(p, 'grad', total.reshape(p.array.shape).astype(p.dtype))
            offset += size

    def finalize(self):
        """Stops the worker processes, then finalizes the iterators."""
        _stop_workers(self._pipes, self._workers)
        super().finalize()


def _stop_workers(pipes, workers):
    """Asks the workers to finish, then empties both lists (in place: atexit holds them)."""
    for pipe in pipes:
        try:
            pipe.send('finalize')
        except (OSError, ValueError):
            pass
    for worker in workers:
        worker.join(timeout=10)
        if worker.is_alive():
            worker.terminate()
            worker.join()
    del pipes[:]
    del workers[:]
