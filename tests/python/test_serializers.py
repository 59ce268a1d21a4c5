"""rensa.serializers: save_npz / load_npz of links, optimizers and Python objects, numpy-compatible."""
import io
import struct
import subprocess
import sys
import zipfile
import zlib

import numpy as np
import pytest

import rensa
from rensa import optimizers
from rensa import serializers

L = rensa._core.links


class MLP(rensa.Chain):
    def __init__(self):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(self.l1(x))


class Net(rensa.Chain):
    def __init__(self, seed):
        super(Net, self).__init__()
        with self.init_scope():
            self.predictor = MLP()
        rng = np.random.RandomState(seed)
        for _, param in sorted(self.namedparams()):
            param.array[...] = rng.uniform(-1, 1, param.shape)

    def forward(self, x):
        return self.predictor(x)


KEYS = {'predictor/l1/W', 'predictor/l1/b', 'predictor/l2/W', 'predictor/l2/b'}


def arrays(link):
    return {name.lstrip('/'): np.array(p.array) for name, p in link.namedparams()}


def total(v):
    return np.ones((1, v.shape[0]), np.float32) @ v @ np.ones((v.shape[1], 1), np.float32)


def train(model, opt, steps, seed):
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        x = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
        opt.update(lambda v: total(model(v) * model(v)), x)


@pytest.mark.parametrize('compression', [True, False])
def test_model_round_trip_and_numpy_reads_it(tmp_path, compression):
    src, dst = Net(0), Net(1)
    path = tmp_path / 'model.npz'
    serializers.save_npz(path, src, compression=compression)
    with np.load(path) as npz:
        assert set(npz.files) == KEYS
        for key, value in arrays(src).items():
            np.testing.assert_array_equal(npz[key], value)
    with zipfile.ZipFile(path) as z:
        kinds = {info.compress_type for info in z.infolist()}
    assert kinds == {zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED}
    serializers.load_npz(str(path), dst)
    for key, value in arrays(src).items():
        np.testing.assert_array_equal(arrays(dst)[key], value)


def test_load_file_written_by_numpy(tmp_path):
    model = Net(0)
    values = {k: v + 1 for k, v in arrays(Net(5)).items()}
    path = tmp_path / 'np.npz'
    np.savez(path, **{'updater/model:main/' + k: v for k, v in values.items()})
    serializers.load_npz(path, model, path='updater/model:main/')
    for key, value in values.items():
        np.testing.assert_array_equal(arrays(model)[key], value)


def test_file_objects():
    src, dst = Net(0), Net(1)
    buf = io.BytesIO()
    serializers.save_npz(buf, src)
    buf.seek(0)
    assert set(np.load(buf).files) == KEYS
    buf.seek(0)
    serializers.load_npz(buf, dst)
    for key, value in arrays(src).items():
        np.testing.assert_array_equal(arrays(dst)[key], value)


def test_optimizer_round_trip_continues_identically(tmp_path):
    model = Net(0)
    opt = optimizers.Adam(alpha=0.01).setup(model)
    train(model, opt, 3, seed=1)
    serializers.save_npz(tmp_path / 'm.npz', model)
    serializers.save_npz(tmp_path / 'o.npz', opt)
    with np.load(tmp_path / 'o.npz') as npz:
        assert {'t', 'epoch', 'predictor/l1/W/m', 'predictor/l1/W/v', 'predictor/l1/W/t'} <= set(npz.files)
        assert int(npz['t']) == 3
    train(model, opt, 2, seed=2)
    expected = arrays(model)

    model2 = Net(7)
    opt2 = optimizers.Adam(alpha=0.01).setup(model2)
    serializers.load_npz(tmp_path / 'm.npz', model2)
    serializers.load_npz(tmp_path / 'o.npz', opt2)
    assert opt2.t == 3
    train(model2, opt2, 2, seed=2)
    for key, value in expected.items():
        np.testing.assert_array_equal(arrays(model2)[key], value)


class Counter(object):
    """A user object with Chainer's serialize protocol."""

    def __init__(self, seed):
        rng = np.random.RandomState(seed)
        self.count = int(rng.randint(100))
        self.rate = float(rng.uniform())
        self.flag = bool(seed % 2)
        self.label = 'counter-%d' % seed
        self.table = rng.uniform(size=(2, 3)).astype(np.float32)
        self.f32 = np.float32(rng.uniform())
        self.missing = None
        self.link = Net(seed)

    def serialize(self, serializer):
        self.count = serializer('count', self.count)
        self.rate = serializer('rate', self.rate)
        self.flag = serializer('flag', self.flag)
        self.label = serializer('label', self.label)
        self.table = serializer('table', self.table)
        self.f32 = serializer('f32', self.f32)
        self.missing = serializer('missing', self.missing)
        self.link.serialize(serializer['link'])


def test_user_object_protocol(tmp_path):
    src, dst = Counter(1), Counter(2)
    table = dst.table
    serializers.save_npz(tmp_path / 'c.npz', src)
    with np.load(tmp_path / 'c.npz', allow_pickle=True) as npz:
        assert {'count', 'rate', 'flag', 'label', 'table', 'link/predictor/l1/W'} <= set(npz.files)
        assert npz['count'].dtype == np.int64 and npz['rate'].dtype == np.float64
        assert str(npz['label']) == src.label
    serializers.load_npz(tmp_path / 'c.npz', dst)
    assert (dst.count, dst.rate, dst.flag, dst.label) == (src.count, src.rate, src.flag, src.label)
    assert dst.table is table  # loaded in place
    np.testing.assert_array_equal(dst.table, src.table)
    assert type(dst.f32) is np.float32 and dst.f32 == src.f32
    assert dst.missing is None
    for key, value in arrays(src.link).items():
        np.testing.assert_array_equal(arrays(dst.link)[key], value)


def test_dictionary_serializer_and_npz_deserializer():
    src, dst = Net(0), Net(1)
    s = serializers.DictionarySerializer()
    s.save(src)
    assert set(s.target) == KEYS
    d = serializers.NpzDeserializer(s.target)
    d.load(dst)
    for key, value in arrays(src).items():
        np.testing.assert_array_equal(arrays(dst)[key], value)
    sub = serializers.DictionarySerializer()
    src.predictor.serialize(sub['predictor'])
    assert set(sub.target) == KEYS
    with pytest.raises(KeyError, match='predictor/l1/W'):
        serializers.NpzDeserializer({}).load(dst)


def test_missing_key_and_strict(tmp_path):
    values = arrays(Net(3))
    del values['predictor/l2/b']
    np.savez(tmp_path / 'part.npz', **values)
    model = Net(0)
    before = arrays(model)
    with pytest.raises(KeyError, match='predictor/l2/b'):
        serializers.load_npz(tmp_path / 'part.npz', model)
    for key, value in before.items():  # nothing changed
        np.testing.assert_array_equal(arrays(model)[key], value)
    serializers.load_npz(tmp_path / 'part.npz', model, strict=False)
    np.testing.assert_array_equal(arrays(model)['predictor/l1/W'], values['predictor/l1/W'])
    np.testing.assert_array_equal(arrays(model)['predictor/l2/b'], before['predictor/l2/b'])


def test_ignore_names(tmp_path):
    src, dst = Net(0), Net(1)
    serializers.save_npz(tmp_path / 'm.npz', src)
    before = arrays(dst)
    serializers.load_npz(tmp_path / 'm.npz', dst, ignore_names=['predictor/l1/W'])
    np.testing.assert_array_equal(arrays(dst)['predictor/l1/W'], before['predictor/l1/W'])
    np.testing.assert_array_equal(arrays(dst)['predictor/l2/W'], arrays(src)['predictor/l2/W'])


def test_wrong_shape_changes_nothing(tmp_path):
    values = arrays(Net(3))
    values['predictor/l2/W'] = np.zeros((3, 3), np.float32)
    np.savez(tmp_path / 'bad.npz', **values)
    model = Net(0)
    before = arrays(model)
    with pytest.raises(ValueError, match='predictor/l2/W'):
        serializers.load_npz(tmp_path / 'bad.npz', model)
    for key, value in before.items():
        np.testing.assert_array_equal(arrays(model)[key], value)


def test_errors():
    with pytest.raises(OSError):
        serializers.load_npz('/nonexistent/dir/x.npz', Net(0))
    with pytest.raises(ValueError, match='serialize'):
        serializers.save_npz(io.BytesIO(), object())


def test_load_initializes_lazy_parameters(tmp_path):
    src = L.Linear(3, 2)
    src.W.array[...] = np.arange(6, dtype=np.float32).reshape(2, 3)
    serializers.save_npz(tmp_path / 'l.npz', src)
    dst = L.Linear(None, 2)
    assert dst.W.array is None
    serializers.load_npz(tmp_path / 'l.npz', dst)
    np.testing.assert_array_equal(dst.W.array, src.W.array)
    # An uninitialised parameter is saved as Chainer's None and loads back as None.
    serializers.save_npz(tmp_path / 'none.npz', L.Linear(None, 2))
    with np.load(tmp_path / 'none.npz', allow_pickle=True) as npz:
        assert npz['W'].item() is None
    lazy = L.Linear(None, 2)
    serializers.load_npz(tmp_path / 'none.npz', lazy)
    assert lazy.W.array is None


def test_load_none_written_by_this_numpy(tmp_path):
    # Chainer's save_npz of Linear(None, 2) with the numpy installed here (numpy 2.x pickles
    # the None marker with protocol 4, numpy 1.x with protocol 3): W stays uninitialised.
    b = np.array([1.0, 2.0], np.float32)
    np.savez_compressed(tmp_path / 'chainer.npz', W=np.array(None, dtype=object), b=b)
    lazy = L.Linear(None, 2)
    serializers.load_npz(tmp_path / 'chainer.npz', lazy)
    assert lazy.W.array is None
    np.testing.assert_array_equal(lazy.b.array, b)


def _zeros_npz(path, rows):
    """An npz whose W is float32 zeros of shape (rows, 1024), deflated without holding them:
    after a full flush the compressed form of 1 MiB of zeros is the same every time."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {'descr': '<f4', 'fortran_order': False, 'shape': (rows, 1024)})
    header = header.getvalue()
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = deflate.compress(header) + deflate.flush(zlib.Z_FULL_FLUSH)
    mib = bytes(1 << 20)
    chunk = deflate.compress(mib) + deflate.flush(zlib.Z_FULL_FLUSH)
    body += chunk * (rows * 4096 >> 20) + deflate.flush()
    crc = zlib.crc32(header)
    for _ in range(rows * 4096 >> 20):
        crc = zlib.crc32(mib, crc)
    size, name = len(header) + rows * 4096, b'W.npy'
    local = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0x21, crc, len(body), size, len(name), 0)
    central = struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 8, 0, 0x21, crc, len(body), size, len(name),
                          0, 0, 0, 0, 0, 0) + name
    offset = len(local) + len(name) + len(body)
    end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 1, 1, len(central), offset, 0)
    path.write_bytes(local + name + body + central + end)


def test_huge_member_fails_on_its_shape_before_allocating(tmp_path):
    # A 1 MiB file whose W claims 1 GiB, loaded into Linear(3, 4) under an address-space cap
    # of 256 MiB above what the process has mapped: a ValueError naming the key and both
    # shapes, not a MemoryError (the header is checked before any data is read).
    _zeros_npz(tmp_path / 'huge.npz', 262144)
    assert (tmp_path / 'huge.npz').stat().st_size < 2 << 20
    script = """
import resource, sys
import rensa
from rensa import serializers
model = rensa._core.links.Linear(3, 4)
with open('/proc/self/statm') as f:
    mapped = int(f.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (mapped + (256 << 20), mapped + (256 << 20)))
try:
    serializers.load_npz(sys.argv[1], model)
except Exception as e:
    print(type(e).__name__, isinstance(e, ValueError), e)
"""
    out = subprocess.run([sys.executable, '-c', script, str(tmp_path / 'huge.npz')], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert ' True ' in out.stdout, out.stdout
    for part in ("key 'W'", '(262144, 1024)', '(4, 3)'):
        assert part in out.stdout, out.stdout


# --- A failed load changes no Python attribute (issue 20, item 5) ---------------------------

class Staged(object):
    """Chainer's protocol, ending with a key ('last') that the test's file lacks."""

    def __init__(self, seed):
        self.count = 7
        self.label = 'seven'
        self.rate = 0.5
        self.f32 = np.float32(1.5)
        self.table = None
        self.grid = [1.0, 2.0]
        self.link = Net(seed)
        self.last = 0

    def serialize(self, serializer):
        self.count = serializer('count', self.count)
        self.label = serializer('label', self.label)
        self.rate = serializer('rate', self.rate)
        self.f32 = serializer('f32', self.f32)
        self.table = serializer('table', self.table)
        self.grid = serializer('grid', self.grid)
        self.link.serialize(serializer['link'])
        self.last = serializer('last', self.last)


def staged_file(path):
    values = {'link/' + k: v for k, v in arrays(Net(3)).items()}
    np.savez(path, count=8, label='eight', rate=0.25, f32=np.float32(2.5), table=np.ones((2, 2)),
             grid=np.array([3.0, 4.0]), **values)
    return values


def test_failed_load_changes_no_python_attribute(tmp_path):
    values = staged_file(tmp_path / 'staged.npz')
    obj = Staged(0)
    before = arrays(obj.link)
    with pytest.raises(KeyError, match='last'):
        serializers.load_npz(tmp_path / 'staged.npz', obj)
    assert (obj.count, obj.label, obj.rate, obj.f32) == (7, 'seven', 0.5, 1.5)
    assert obj.table is None and obj.grid == [1.0, 2.0]
    for key, value in before.items():
        np.testing.assert_array_equal(arrays(obj.link)[key], value)
    # The same walk with the key allowed to be absent assigns everything.
    serializers.load_npz(tmp_path / 'staged.npz', obj, strict=False)
    assert (obj.count, obj.label, obj.rate, obj.last) == (8, 'eight', 0.25, 0)
    assert type(obj.f32) is np.float32 and obj.f32 == 2.5
    np.testing.assert_array_equal(obj.table, np.ones((2, 2)))
    np.testing.assert_array_equal(obj.grid, [3.0, 4.0])
    for key, value in values.items():
        np.testing.assert_array_equal(arrays(obj.link)[key[len('link/'):]], value)


class Rate(object):
    def __init__(self):
        self.rate = 0.0

    def serialize(self, serializer):
        self.rate = serializer('rate', self.rate)


def test_failed_npz_deserializer_load_queues_nothing(tmp_path):
    staged_file(tmp_path / 'staged.npz')
    obj = Staged(0)
    before = arrays(obj.link)
    with np.load(tmp_path / 'staged.npz') as npz:
        d = serializers.NpzDeserializer(dict(npz))
    with pytest.raises(KeyError, match='last'):
        d.load(obj)
    rate = Rate()
    d.load(rate)  # commits: what the failed load queued must not run now
    assert rate.rate == 0.25
    assert (obj.count, obj.label) == (7, 'seven')
    for key, value in before.items():
        np.testing.assert_array_equal(arrays(obj.link)[key], value)


class Scaled(rensa.Chain):
    """A link with its own serialize() below a C++ walk."""

    def __init__(self):
        super(Scaled, self).__init__()
        with self.init_scope():
            self.l = L.Linear(2, 2)
        self.scale = 1.0
        self.steps = 3

    def serialize(self, serializer):
        super(Scaled, self).serialize(serializer)
        self.scale = serializer('scale', self.scale)
        self.steps = serializer('steps', self.steps)


class Outer(rensa.Chain):
    def __init__(self):
        super(Outer, self).__init__()
        with self.init_scope():
            self.inner = Scaled()
            self.tail = L.Linear(2, 2)


def test_failed_load_through_links_changes_nothing(tmp_path):
    src = Outer()
    src.inner.scale, src.inner.steps = 2.0, 9
    src.inner.l.W.array[...] = 5
    serializers.save_npz(tmp_path / 'outer.npz', src)
    with np.load(tmp_path / 'outer.npz') as npz:
        values = dict(npz)
    del values['tail/b']
    np.savez(tmp_path / 'part.npz', **values)
    dst = Outer()
    w = dst.inner.l.W.array.copy()
    with pytest.raises(KeyError, match='tail/b'):
        serializers.load_npz(tmp_path / 'part.npz', dst)
    assert (dst.inner.scale, dst.inner.steps) == (1.0, 3)
    np.testing.assert_array_equal(dst.inner.l.W.array, w)
    serializers.load_npz(tmp_path / 'outer.npz', dst)
    assert (dst.inner.scale, dst.inner.steps) == (2.0, 9)
    np.testing.assert_array_equal(dst.inner.l.W.array, src.inner.l.W.array)


def test_failed_trainer_load_changes_no_python_extension():
    from rensa import training

    class Ext(training.Extension):
        def __init__(self):
            self.count = 7

        def __call__(self, trainer):
            pass

        def serialize(self, serializer):
            self.count = serializer('count', self.count)
            self.note = serializer('note', getattr(self, 'note', ''))

    def make():
        opt = optimizers.SGD()
        opt.setup(Net(0))
        dataset = rensa.datasets.TupleDataset(np.zeros((4, 3), np.float32))
        it = rensa.iterators.SerialIterator(dataset, 2)
        updater = training.updaters.StandardUpdater(it, opt)
        trainer = training.Trainer(updater, (1, 'epoch'), out='unused')
        ext = Ext()
        trainer.extend(ext, name='ext')
        return trainer, ext

    trainer, ext = make()
    ext.count, ext.note = 8, 'eight'
    saved = serializers.DictionarySerializer()
    saved.save(trainer)
    target = dict(saved.target)
    del target['extensions/ext/note']
    trainer, ext = make()
    with pytest.raises(KeyError, match='extensions/ext/note'):
        serializers.NpzDeserializer(target).load(trainer)
    assert ext.count == 7
    serializers.NpzDeserializer(saved.target).load(trainer)
    assert (ext.count, ext.note) == (8, 'eight')
