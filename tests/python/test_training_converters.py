"""Converters, StandardUpdater and Evaluator as Chainer 7 calls them (issue 22): what a
converter receives as device, converted batches of any structure reaching the loss function
(tuple -> *args, dict -> **kwargs, else one argument), assignable converter / loss_func,
input_device, concat_examples' padding rules, and PlotReport's point before training."""
import numpy
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
from rensa import backend
from rensa import training
from rensa.dataset import convert
from rensa.training import extensions

report = getattr(rensa, 'report', None) or rensa._core.report


def ragged_data(n=12, seed=0):
    rs = numpy.random.RandomState(seed)
    return [(rs.randint(0, 5, size=rs.randint(1, 4)).astype(numpy.int32), numpy.int32(rs.randint(2)))
            for _ in range(n)]


class BagModel(rensa.Chain):
    """Sums the embeddings of each variable-length sequence of xs and classifies the sum."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(5, 3)
            self.out = L.Linear(3, 2)
        self.calls = []

    def forward(self, xs, ts):
        self.calls.append((type(xs), [len(x) for x in xs]))
        h = F.stack([F.sum(self.embed(x), axis=0) for x in xs])
        loss = F.softmax_cross_entropy(self.out(h), ts)
        report({'loss': loss}, self)
        return loss


def list_converter(batch, device):
    # An old-style converter (a plain function): a list of variable-length arrays and labels.
    list_converter.devices.append(device)
    return [x for x, _ in batch], numpy.array([t for _, t in batch])


list_converter.devices = []


@rensa.dataset.converter()
def dict_converter(batch, device):
    dict_converter.devices.append(device)
    return {'xs': [x for x, _ in batch], 'ts': numpy.array([t for _, t in batch])}


dict_converter.devices = []


def make_updater(converter, **kwargs):
    model = BagModel()
    optimizer = rensa.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    iterator = rensa.iterators.SerialIterator(ragged_data(), 4, shuffle=False)
    return model, training.updaters.StandardUpdater(iterator, optimizer, converter=converter, **kwargs)


def test_old_style_converter_gets_minus_one_and_lists_reach_the_model_unchanged():
    list_converter.devices.clear()
    model, updater = make_updater(list_converter, device='@numpy')
    assert isinstance(updater.device, backend.CpuDevice) and updater.input_device == updater.device
    updater.update()
    assert list_converter.devices == [-1]
    assert model.calls == [(list, [len(x) for x, _ in ragged_data()[:4]])]
    assert updater.iteration == 1


def test_decorated_converter_gets_a_device_object_and_a_dict_goes_as_keywords():
    dict_converter.devices.clear()
    model, updater = make_updater(dict_converter, input_device=-1)
    assert updater.device is None and isinstance(updater.input_device, backend.CpuDevice)
    updater.update()
    assert len(dict_converter.devices) == 1 and isinstance(dict_converter.devices[0], backend.CpuDevice)
    assert model.calls[0][0] is list
    # Called directly with an integer, a decorated converter still sees a device object.
    dict_converter(ragged_data()[:2], -1)
    assert isinstance(dict_converter.devices[-1], backend.CpuDevice)


def test_no_device_means_none_for_either_style():
    list_converter.devices.clear()
    dict_converter.devices.clear()
    make_updater(list_converter)[1].update()
    make_updater(dict_converter)[1].update()
    assert list_converter.devices == [None] and dict_converter.devices == [None]


def test_call_converter_for_a_gpu_device_gives_the_old_style_its_id():
    got = []
    # GpuDevice checks for a usable GPU; the converter call needs only the device object.
    gpu = backend.GpuDevice.__new__(backend.GpuDevice)
    gpu._rensa_device = rensa._core.Device('cuda:1')
    convert._call_converter(lambda batch, device: got.append(device), [], gpu)
    assert got == [1]


def test_converter_and_loss_func_are_assignable_and_anything_else_is_one_argument():
    model, updater = make_updater(list_converter)
    seen = []

    def loss_func(batch):
        seen.append(batch)
        xs = [x for x, _ in batch['pairs']]
        return model(xs, numpy.array([t for _, t in batch['pairs']]))

    updater.converter = lambda batch, device: {'pairs': list(batch)}  # a dict, not a tuple
    updater.loss_func = lambda pairs: loss_func({'pairs': pairs})
    updater.update()
    assert len(seen) == 1 and len(seen[0]['pairs']) == 4
    updater.converter = lambda batch, device: {'nested': [[x] for x, _ in batch]}
    updater.loss_func = lambda nested: loss_func({'pairs': [(n[0], 0) for n in nested]})
    updater.update()
    assert updater.iteration == 2 and updater.converter is not None


def test_standard_updater_rejects_unknown_keywords():
    with pytest.raises(TypeError, match='unexpected keyword'):
        make_updater(list_converter, input_devices=-1)


def test_updater_with_a_custom_converter_matches_a_hand_written_loop():
    data = ragged_data()
    model, updater = make_updater(list_converter)
    reference = BagModel()
    reference.copyparams(model)
    opt = rensa.optimizers.SGD(lr=0.1)
    opt.setup(reference)
    for i in range(3):
        updater.update()
        batch = data[4 * i:4 * i + 4]
        opt.update(reference, [x for x, _ in batch], numpy.array([t for _, t in batch]))
    numpy.testing.assert_allclose(numpy.asarray(model.out.W.array), numpy.asarray(reference.out.W.array),
                                  rtol=1e-6)


def test_evaluator_with_a_custom_converter_averages_over_batches():
    model = BagModel()
    data = ragged_data()
    iterator = rensa.iterators.SerialIterator(data, 4, repeat=False, shuffle=False)
    evaluator = extensions.Evaluator(iterator, model, converter=list_converter)
    assert evaluator.converter is list_converter
    result = evaluator.evaluate()
    with rensa.using_config('train', False), rensa.no_backprop_mode():
        losses = [float(model([x for x, _ in data[i:i + 4]], numpy.array([t for _, t in data[i:i + 4]])).array)
                  for i in range(0, 12, 4)]
    assert float(result['main/loss']) == pytest.approx(numpy.mean(losses), rel=1e-6)
    # A second pass starts over (the iterator is reset).
    assert float(evaluator.evaluate()['main/loss']) == pytest.approx(numpy.mean(losses), rel=1e-6)


def test_evaluator_with_the_default_converter_stays_the_stock_pass():
    model = rensa.links.Classifier(rensa.links.Linear(3, 2))
    x = numpy.random.RandomState(1).standard_normal((6, 3)).astype(numpy.float32)
    t = numpy.array([0, 1, 0, 1, 1, 0], numpy.int32)
    iterator = rensa.iterators.SerialIterator(rensa.datasets.TupleDataset(x, t), 3, repeat=False)
    evaluator = extensions.Evaluator(iterator, model)
    assert type(evaluator) is extensions.Evaluator and 'evaluate' not in type(evaluator).__dict__
    assert 'main/loss' in evaluator.evaluate()


def test_evaluator_rejects_a_repeating_iterator_with_a_custom_converter():
    iterator = rensa.iterators.SerialIterator(ragged_data(), 4)
    with pytest.raises(ValueError, match='repeats'):
        extensions.Evaluator(iterator, BagModel(), converter=list_converter)


def test_concat_examples_follows_chainer():
    batch = [(numpy.array([1, 2]), 0), (numpy.array([3]), 1), (numpy.array([], numpy.int64), 2)]
    x, t = rensa.dataset.concat_examples(batch, padding=100)
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 100], [100, 100]])
    numpy.testing.assert_array_equal(t, [0, 1, 2])
    z = [(numpy.array([1, 2]), numpy.array([0])), (numpy.array([3]), numpy.array([], numpy.int64))]
    x, y = rensa.dataset.concat_examples(z, padding=(100, 200))
    numpy.testing.assert_array_equal(y, [[0], [200]])
    x, t = rensa.dataset.concat_examples([([1, 2], 1), ([3, 4], 2)], device=backend.CpuDevice())
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match='empty'):
        rensa.dataset.concat_examples([])
    with pytest.raises(ValueError):
        rensa.dataset.concat_examples([numpy.zeros(2), numpy.zeros(3)])


def test_plot_report_keeps_the_point_before_training_apart(tmp_path):
    # Chainer's MNIST example: Evaluator and PlotReport extended with call_before_training.
    model = BagModel()
    optimizer = rensa.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    updater = training.updaters.StandardUpdater(
        rensa.iterators.SerialIterator(ragged_data(), 4, shuffle=False), optimizer, converter=list_converter)
    trainer = training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
    val = rensa.iterators.SerialIterator(ragged_data(6, seed=3), 3, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(val, model, converter=list_converter), call_before_training=True)
    plot = extensions.PlotReport(['main/loss', 'validation/main/loss'], x_key='epoch', filename='loss.png')
    trainer.extend(plot, call_before_training=True)
    trainer.extend(extensions.LogReport(), call_before_training=True)
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert [e['epoch'] for e in log] == [0, 1, 2]
    points = plot._data['validation/main/loss']
    assert [p[0] for p in points] == [0, 1, 2]
    for (_, y), entry in zip(points, log):
        assert y == pytest.approx(entry['validation/main/loss'], rel=1e-6)
    assert [p[0] for p in plot._data['main/loss']] == [1, 2]


def test_concat_examples_pads_dicts_per_key():
    w = [{'feature': numpy.array([1, 2]), 'label': numpy.array([0])},
         {'feature': numpy.array([3]), 'label': numpy.array([], numpy.int64)}]
    out = rensa.dataset.concat_examples(w, padding={'feature': -1, 'label': 9})
    numpy.testing.assert_array_equal(out['feature'], [[1, 2], [3, -1]])
    numpy.testing.assert_array_equal(out['label'], [[0], [9]])
    with pytest.raises(KeyError, match="no value for the key 'label'"):
        rensa.dataset.concat_examples(w, padding={'feature': -1})
    with pytest.raises(ValueError, match='must be dicts'):
        rensa.dataset.concat_examples([(numpy.array([1]),)], padding={'x': 0})


def test_trainer_observation_holds_variables(tmp_path):
    model, updater = make_updater(list_converter)
    trainer = training.Trainer(updater, (1, 'iteration'), out=str(tmp_path))
    seen = []
    trainer.extend(lambda t: seen.append(t.observation['main/loss']), trigger=(1, 'iteration'))
    trainer.run()
    assert isinstance(seen[0], rensa.Variable) and seen[0].shape == ()


def test_resumed_run_does_not_evaluate_again_before_training(tmp_path):
    # Chainer's MNIST example: Evaluator and LogReport called before training. Resumed after
    # epoch 1, the epoch-2 entry must not fold in a second evaluation at the resume point.
    def build(out, epochs):
        model, updater = make_updater(list_converter)
        rs = numpy.random.RandomState(5)  # the same start for every run
        for _, param in sorted(model.namedparams()):
            param.array[...] = rs.uniform(-1, 1, param.shape)
        trainer = training.Trainer(updater, (epochs, 'epoch'), out=str(out))
        val = rensa.iterators.SerialIterator(ragged_data(6, seed=3), 3, repeat=False, shuffle=False)
        trainer.extend(extensions.Evaluator(val, model, converter=list_converter), call_before_training=True)
        trainer.extend(extensions.LogReport(), call_before_training=True)
        trainer.extend(extensions.snapshot(filename='snap_{.updater.epoch}'), trigger=(1, 'epoch'))
        return model, trainer

    _, straight = build(tmp_path / 'straight', 2)
    straight.run()
    _, first = build(tmp_path / 'part', 1)
    first.run()
    _, resumed = build(tmp_path / 'part', 2)
    rensa.serializers.load_npz(str(tmp_path / 'part' / 'snap_1'), resumed)
    resumed.run()
    expected = straight.get_extension('LogReport').log
    got = resumed.get_extension('LogReport').log
    assert [e['epoch'] for e in got] == [0, 1, 2]
    for g, e in zip(got, expected):
        assert g['validation/main/loss'] == pytest.approx(e['validation/main/loss'], rel=1e-6)


def test_evaluator_subclass_with_its_own_arguments():
    # A subclass whose third argument is not a converter (chainermn-style extensions).
    class Sampler(extensions.Evaluator):
        def __init__(self, iterator, target, label):
            super().__init__(iterator, target)
            self.label = label

    model = rensa.links.Classifier(rensa.links.Linear(3, 2))
    x = numpy.ones((4, 3), numpy.float32)
    t = numpy.zeros(4, numpy.int32)
    sampler = Sampler(rensa.iterators.SerialIterator(rensa.datasets.TupleDataset(x, t), 2, repeat=False),
                      model, lambda: None)
    assert 'main/loss' in sampler.evaluate()


def test_default_converter_gives_dict_batches_as_keywords():
    # concat_examples (taken through C++) keeps dict examples as a dict: forward(**batch).
    rs = numpy.random.RandomState(2)
    data = [{'t': numpy.int32(i % 2), 'x': rs.standard_normal(3).astype(numpy.float32)} for i in range(8)]
    seen = []

    class Model(rensa.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 2)

        def forward(self, x, t):
            seen.append((x.shape, t.shape, t.dtype))
            return F.softmax_cross_entropy(self.l(x), t)

    model = Model()
    optimizer = rensa.optimizers.SGD()
    optimizer.setup(model)
    updater = training.updaters.StandardUpdater(rensa.iterators.SerialIterator(data, 4, shuffle=False), optimizer)
    assert updater.converter is rensa.dataset.concat_examples
    updater.update()
    assert seen == [((4, 3), (4,), numpy.int32)]
