"""rensa.training from Python: a whole Trainer run, resume, and each subclassing path
(Python extensions, make_extension, update_core, triggers), Ctrl-C and exceptions."""
import gc
import json
import os
import signal

import numpy
import pytest

import rensa
import rensa.functions as F
from rensa import training
from rensa.training import extensions

# rensa.report once rensa/reporter.py re-exports it (the core helper's).
report = getattr(rensa, 'report', None) or rensa._core.report


class Regressor(rensa.Chain):
    """y = x W^T + b with a mean squared error loss reported as 'loss'."""

    def __init__(self, W, b):
        super().__init__()
        with self.init_scope():
            self.W = rensa.Parameter(W.copy())
            self.b = rensa.Parameter(b.copy())

    def forward(self, x, t):
        loss = F.mean_squared_error(F.linear(x, self.W, self.b), t)
        report({'loss': loss}, self)
        return loss


def make_data(rng, n):
    x = rng.standard_normal((n, 3)).astype(numpy.float32)
    t = (x @ numpy.array([[1., -2., .5], [.3, .1, -1.]], numpy.float32).T + 0.25).astype(numpy.float32)
    return [(x[i], t[i]) for i in range(n)]


def make_model(rng):
    W = rng.standard_normal((2, 3)).astype(numpy.float32)
    b = numpy.zeros(2, numpy.float32)
    return Regressor(W, b)


def make_trainer(model, train, stop, out, optimizer=None, updater_cls=None):
    optimizer = optimizer or rensa.optimizers.SGD(lr=0.05)
    optimizer.setup(model)
    it = rensa.iterators.SerialIterator(train, 8, shuffle=False)
    updater = (updater_cls or training.updaters.StandardUpdater)(it, optimizer)
    return training.Trainer(updater, stop, out=str(out))


def numpy_mse(model, data):
    x = numpy.stack([d[0] for d in data])
    t = numpy.stack([d[1] for d in data])
    y = x @ numpy.asarray(model.W.array).T + numpy.asarray(model.b.array)
    return float(numpy.mean((y - t) ** 2))


def without_time(log):
    return [{k: v for k, v in e.items() if k != 'elapsed_time'} for e in log]


def test_trainer_end_to_end(tmp_path, rng, capsys):
    train, test = make_data(rng, 32), make_data(rng, 16)
    model = make_model(rng)
    trainer = make_trainer(model, train, (3, 'epoch'), tmp_path, optimizer=rensa.optimizers.Adam(alpha=0.05))
    test_iter = rensa.iterators.SerialIterator(test, 8, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(test_iter, model))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(['epoch', 'main/loss', 'validation/main/loss']))
    trainer.extend(extensions.ProgressBar(update_interval=2))
    trainer.extend(extensions.snapshot())
    trainer.extend(extensions.PlotReport(['main/loss', 'validation/main/loss'], 'epoch', filename='loss.png'))
    trainer.run()

    assert trainer.updater.iteration == 12 and trainer.updater.epoch == 3
    log = trainer.get_extension('LogReport').log
    assert [e['epoch'] for e in log] == [1, 2, 3]
    assert [e['iteration'] for e in log] == [4, 8, 12]
    # The evaluator ran the final model over the whole test set.
    assert log[-1]['validation/main/loss'] == pytest.approx(numpy_mse(model, test), rel=1e-5)
    with open(os.path.join(str(tmp_path), 'log')) as f:
        assert without_time(json.load(f)) == without_time(log)

    out = capsys.readouterr().out
    assert 'validation/main/loss' in out
    for entry in log:
        assert '{:g}'.format(entry['validation/main/loss']) in out
    assert 'this epoch [' in out and 'iter, ' in out

    for it in (4, 8, 12):
        assert os.path.isfile(os.path.join(str(tmp_path), 'snapshot_iter_{}'.format(it)))
    png = os.path.join(str(tmp_path), 'loss.png')
    with open(png, 'rb') as f:
        assert f.read(8) == b'\x89PNG\r\n\x1a\n'
    import matplotlib.image
    image = matplotlib.image.imread(png)
    assert image.ndim == 3 and image.shape[0] > 50 and image.shape[1] > 50
    assert extensions.PlotReport.available()


def test_resume_gives_the_same_log(tmp_path, rng):
    train = make_data(rng, 24)
    model_seed = make_model(rng)
    W0, b0 = numpy.asarray(model_seed.W.array).copy(), numpy.asarray(model_seed.b.array).copy()

    def build(out, stop):
        trainer = make_trainer(Regressor(W0, b0), train, stop, out)
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.snapshot(filename='snap_{.updater.epoch}'))
        return trainer

    whole = build(tmp_path / 'whole', (4, 'epoch'))
    whole.run()
    first = build(tmp_path / 'part', (2, 'epoch'))
    first.run()
    resumed = build(tmp_path / 'part', (4, 'epoch'))
    rensa.serializers.load_npz(str(tmp_path / 'part' / 'snap_2'), resumed)
    assert resumed.updater.iteration == 6
    resumed.run()
    expected = without_time(whole.get_extension('LogReport').log)
    got = without_time(resumed.get_extension('LogReport').log)
    assert [e['epoch'] for e in got] == [1, 2, 3, 4]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.keys() == e.keys()
        for k in g:
            assert g[k] == pytest.approx(e[k], rel=1e-6), k


def _run_short(tmp_path, rng, stop=(6, 'iteration'), extend=()):
    trainer = make_trainer(make_model(rng), make_data(rng, 16), stop, tmp_path)
    for e in extend:
        trainer.extend(*e) if isinstance(e, tuple) else trainer.extend(e)
    return trainer


def test_python_extension_held_only_by_cpp(tmp_path, rng):
    events = []

    class Recorder(training.Extension):
        trigger = 2, 'iteration'
        priority = training.PRIORITY_WRITER

        def __init__(self, tag):  # no super().__init__(), as Chainer code often does
            self.tag = tag

        def __call__(self, trainer):
            events.append((self.tag, trainer.updater.iteration))

        def initialize(self, trainer):
            events.append((self.tag, 'init'))

        def finalize(self):
            events.append((self.tag, 'final'))

    trainer = _run_short(tmp_path, rng)
    trainer.extend(Recorder('r'))
    gc.collect()
    ext = trainer.get_extension('Recorder')
    assert isinstance(ext, Recorder) and ext.tag == 'r' and ext.name == 'Recorder'
    del ext
    gc.collect()
    trainer.run()
    assert events == [('r', 'init'), ('r', 2), ('r', 4), ('r', 6), ('r', 'final')]


def test_make_extension_held_only_by_cpp(tmp_path, rng):
    events = []

    def add_to(trainer):
        @training.make_extension(trigger=(3, 'iteration'), default_name='hello',
                                 initializer=lambda tr: events.append('init'),
                                 finalizer=lambda: events.append('final'))
        def hello(tr):
            events.append(tr.updater.iteration)
        trainer.extend(hello)

    trainer = _run_short(tmp_path, rng)
    add_to(trainer)
    gc.collect()
    assert trainer.get_extension('hello').default_name == 'hello'
    trainer.run()
    assert events == ['init', 3, 6, 'final']


def test_update_core_override_matches_the_default(tmp_path, rng):
    train = make_data(rng, 16)
    model_seed = make_model(rng)
    W0, b0 = numpy.asarray(model_seed.W.array), numpy.asarray(model_seed.b.array)
    calls = []

    class ManualUpdater(training.updaters.StandardUpdater):
        def update_core(self):
            calls.append(self.iteration)
            batch = self.get_iterator('main').next()
            x, t = self.converter(batch, self.device)
            optimizer = self.get_optimizer('main')
            optimizer.update(optimizer.target, x, t)

    reference = Regressor(W0, b0)
    make_trainer(reference, train, (5, 'iteration'), tmp_path / 'a').run()
    manual = Regressor(W0, b0)
    trainer = make_trainer(manual, train, (5, 'iteration'), tmp_path / 'b', updater_cls=ManualUpdater)
    gc.collect()
    trainer.run()
    assert calls == [0, 1, 2, 3, 4]
    assert trainer.updater.iteration == 5
    numpy.testing.assert_allclose(numpy.asarray(manual.W.array), numpy.asarray(reference.W.array), rtol=1e-6)
    numpy.testing.assert_allclose(numpy.asarray(manual.b.array), numpy.asarray(reference.b.array), rtol=1e-6)


def test_python_triggers(tmp_path, rng):
    seen = []
    trainer = _run_short(tmp_path, rng, stop=lambda tr: tr.updater.iteration >= 7)
    trainer.extend(lambda tr: seen.append(tr.updater.iteration), name='probe',
                   trigger=lambda tr: tr.updater.iteration in (2, 5))
    trainer.extend(lambda tr: seen.append(-tr.updater.iteration), name='manual',
                   trigger=training.triggers.ManualScheduleTrigger([3, 6], 'iteration'))
    trainer.run()
    assert trainer.updater.iteration == 7
    assert seen == [2, -3, 5, -6]


def test_get_trigger_forms():
    trigger = training.get_trigger((2, 'epoch'))
    assert isinstance(trigger, training.triggers.IntervalTrigger)
    assert (trigger.period, trigger.unit) == (2, 'epoch')
    fn = lambda tr: True  # noqa: E731
    assert training.get_trigger(fn) is fn
    with pytest.raises(ValueError):
        training.get_trigger((1, 'fortnight'))


def test_ctrl_c_stops_cleanly(tmp_path, rng):
    events = []

    class Interrupter(training.Extension):
        def __call__(self, trainer):
            events.append(trainer.updater.iteration)
            if trainer.updater.iteration == 3:
                os.kill(os.getpid(), signal.SIGINT)

        def finalize(self):
            events.append('final')

    trainer = _run_short(tmp_path, rng, stop=(100, 'iteration'))
    trainer.extend(Interrupter())
    with pytest.raises(KeyboardInterrupt):
        trainer.run()
    assert events == [1, 2, 3, 'final']
    assert trainer.updater.iteration == 3


def test_exception_from_python_extension_keeps_its_type(tmp_path, rng):
    class MyError(ValueError):
        pass

    seen = []

    class Failing(training.Extension):
        def __call__(self, trainer):
            if trainer.updater.iteration == 2:
                raise MyError('boom at 2')

        def on_error(self, trainer, exc, tb):
            seen.append(exc)

        def finalize(self):
            seen.append('final')

    trainer = _run_short(tmp_path, rng)
    trainer.extend(Failing())
    with pytest.raises(MyError, match='boom at 2') as info:
        trainer.run()
    assert seen[0] is info.value and seen[1] == 'final'


def test_evaluator_subclass_overrides_evaluate(tmp_path, rng):
    class Constant(extensions.Evaluator):
        def evaluate(self):
            return {'main/metric': 0.5 + self.get_iterator('main').batch_size}

    test_iter = rensa.iterators.SerialIterator(make_data(rng, 8), 4, repeat=False, shuffle=False)
    model = make_model(rng)
    trainer = _run_short(tmp_path, rng, stop=(4, 'iteration'))
    trainer.extend(Constant(test_iter, model), trigger=(2, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(2, 'iteration')))
    gc.collect()
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert [e['validation/main/metric'] for e in log] == [4.5, 4.5]


def test_exponential_shift_and_observe_lr(tmp_path, rng):
    trainer = _run_short(tmp_path, rng, stop=(4, 'iteration'))
    trainer.extend(extensions.ExponentialShift('lr', 0.5), trigger=(1, 'iteration'))
    trainer.extend(extensions.observe_lr(), trigger=(1, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(1, 'iteration')))
    trainer.run()
    lrs = [e['lr'] for e in trainer.get_extension('LogReport').log]
    # observe_lr is a writer, so it runs before the shift (a reader) of the same iteration.
    numpy.testing.assert_allclose(lrs, [0.05 * 0.5 ** i for i in range(4)], rtol=1e-12)
    assert trainer.updater.get_optimizer('main').lr == pytest.approx(0.05 * 0.5 ** 4)


def test_summary_matches_numpy(rng):
    values = rng.standard_normal(7)
    s = rensa._core.training.Summary()
    for v in values:
        s.add(float(v))
    mean, std = s.make_statistics()
    assert mean == pytest.approx(values.mean()) and std == pytest.approx(values.std())
    d = rensa._core.training.DictSummary()
    d.add({'a': 1.0, 'b': numpy.float32(3.0)})
    d.add({'a': 3.0})
    assert d.compute_mean() == {'a': 2.0, 'b': 3.0}


def test_max_value_trigger_and_snapshot_object(tmp_path, rng):
    accuracies = iter([0.2, 0.5, 0.4, 0.7, 0.6, 0.9])

    @training.make_extension(trigger=(1, 'iteration'), priority=training.PRIORITY_WRITER)
    def fake_accuracy(trainer):
        report({'validation/accuracy': next(accuracies)})

    model = make_model(rng)
    trainer = make_trainer(model, make_data(rng, 16), (6, 'iteration'), tmp_path)
    trainer.extend(fake_accuracy)
    fired = []
    trainer.extend(lambda tr: fired.append(tr.updater.iteration), name='best',
                   trigger=training.triggers.MaxValueTrigger('validation/accuracy', (1, 'iteration')))
    trainer.extend(extensions.snapshot_object(model, 'model_{.updater.iteration}'),
                   trigger=training.triggers.MaxValueTrigger('validation/accuracy', (1, 'iteration')))
    trainer.run()
    assert fired == [1, 2, 4, 6]
    assert sorted(os.listdir(str(tmp_path))) == ['model_1', 'model_2', 'model_4', 'model_6']
    loaded = Regressor(numpy.zeros((2, 3), numpy.float32), numpy.zeros(2, numpy.float32))
    rensa.serializers.load_npz(str(tmp_path / 'model_6'), loaded)
    numpy.testing.assert_array_equal(numpy.asarray(loaded.W.array), numpy.asarray(model.W.array))


def test_python_extension_state_goes_into_the_snapshot(tmp_path, rng):
    class Counter(training.Extension):
        def __init__(self):
            self.count = 0

        def __call__(self, trainer):
            self.count += 1

        def serialize(self, serializer):
            self.count = serializer('count', self.count)

    first = _run_short(tmp_path, rng, stop=(5, 'iteration'))
    first.extend(Counter())
    first.extend(extensions.snapshot(filename='snap'), trigger=(5, 'iteration'))
    first.run()
    second = _run_short(tmp_path, rng, stop=(5, 'iteration'))
    counter = Counter()
    second.extend(counter)
    second.extend(extensions.snapshot(filename='snap'), trigger=(5, 'iteration'))
    rensa.serializers.load_npz(str(tmp_path / 'snap'), second)
    assert counter.count == 5 and second.updater.iteration == 5


def test_python_converter_and_loss_func(tmp_path, rng):
    train = make_data(rng, 16)
    model_seed = make_model(rng)
    W0, b0 = numpy.asarray(model_seed.W.array), numpy.asarray(model_seed.b.array)
    batches = []

    def converter(batch, device=None):
        batches.append(len(batch))
        x = numpy.stack([e[0] for e in batch])
        t = numpy.stack([e[1] for e in batch])
        return x, t

    losses = []

    def run(out, **kwargs):
        model = Regressor(W0, b0)
        optimizer = rensa.optimizers.SGD(lr=0.05)
        optimizer.setup(model)
        it = rensa.iterators.SerialIterator(train, 8, shuffle=False)
        updater = training.updaters.StandardUpdater(it, optimizer, **kwargs)
        training.Trainer(updater, (4, 'iteration'), out=str(out)).run()
        return model

    def loss_func(x, t):
        losses.append(x.shape)
        return model_ref[0](x, t)

    reference = run(tmp_path / 'a')
    model_ref = [Regressor(W0, b0)]
    optimizer = rensa.optimizers.SGD(lr=0.05)
    optimizer.setup(model_ref[0])
    updater = training.updaters.StandardUpdater(
        rensa.iterators.SerialIterator(train, 8, shuffle=False), optimizer,
        converter=converter, loss_func=loss_func)
    assert updater.converter is converter and updater.loss_func is loss_func
    training.Trainer(updater, (4, 'iteration'), out=str(tmp_path / 'b')).run()
    assert batches == [8] * 4 and losses == [(8, 3)] * 4
    numpy.testing.assert_allclose(numpy.asarray(model_ref[0].W.array), numpy.asarray(reference.W.array),
                                  rtol=1e-6)


def test_reports_write_to_a_python_file_object(tmp_path, rng):
    import io
    out = io.StringIO()
    trainer = _run_short(tmp_path, rng, stop=(4, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(2, 'iteration')))
    trainer.extend(extensions.PrintReport(['iteration', 'main/loss'], out=out))
    trainer.extend(extensions.ProgressBar(training_length=(4, 'iteration'), update_interval=1, out=out))
    trainer.run()
    text = out.getvalue()
    log = trainer.get_extension('LogReport').log
    rows = [r for r in (line.split() for line in text.splitlines()) if len(r) == 2 and r[0] in ('2', '4')]
    assert [int(r[0]) for r in rows] == [2, 4]
    assert [float(r[1]) for r in rows] == pytest.approx([e['main/loss'] for e in log], rel=1e-5)
    assert text.count('total [') == 4 and '\x1b' not in text


def test_early_stopping_trigger_stops_training(tmp_path, rng):
    values = iter([5.0, 4.0, 4.5, 4.6, 4.7, 1.0, 1.0, 1.0])

    @training.make_extension(trigger=(1, 'iteration'), priority=training.PRIORITY_WRITER)
    def fake_loss(trainer):
        report({'val/loss': next(values)})

    stop = training.triggers.EarlyStoppingTrigger(check_trigger=(1, 'iteration'), monitor='val/loss',
                                                  patience=3, max_trigger=(8, 'iteration'))
    trainer = _run_short(tmp_path, rng, stop=stop)
    trainer.extend(fake_loss)
    trainer.run()
    # Best 4.0 at iteration 2; 4.5, 4.6, 4.7 are three checks without improvement.
    assert trainer.updater.iteration == 5
    assert trainer.stop_trigger is stop
