"""Read-only numpy memory wrapped by rensa (issue 20, item 1): numpy's and Chainer's
"ValueError: assignment destination is read-only" instead of a crash or a write into
immutable memory. Each write runs in a child process too where a bug would crash it."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rensa
from rensa import optimizers
from rensa import serializers

L = rensa.links

READ_ONLY = [
    ("frombuffer", lambda: np.frombuffer(bytes(np.arange(12, dtype=np.float32).tobytes()),
                                         dtype=np.float32).reshape(3, 4)),
    ("flag", lambda: _flagged(np.arange(12, dtype=np.float32).reshape(3, 4))),
    ("broadcast_to", lambda: np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4))),
]


def _flagged(a):
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("name,make", READ_ONLY, ids=[n for n, _ in READ_ONLY])
def test_views_stay_read_only(name, make):
    x = make()
    v = rensa.Variable(x)
    assert not v.array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        v.array[0] = 1
    np.testing.assert_array_equal(v.array, x)
    # Results of computations own fresh, writeable memory.
    y = rensa.functions.relu(v)
    assert y.array.flags.writeable


@pytest.mark.parametrize("name,make", READ_ONLY, ids=[n for n, _ in READ_ONLY])
def test_copydata_and_cleargrad_paths_raise(name, make):
    x = make()
    before = x.copy()
    v = rensa.Variable(x)
    with pytest.raises(ValueError, match="assign: assignment destination is read-only"):
        v.copydata(rensa.Variable(np.ones((3, 4), np.float32)))
    np.testing.assert_array_equal(x, before)


def test_bytes_object_is_never_modified_by_an_update():
    raw = np.arange(12, dtype=np.float32).tobytes()
    snapshot = bytes(raw)
    link = L.Linear(4, 3)
    link.W.array = np.frombuffer(raw, dtype=np.float32).reshape(3, 4)
    opt = optimizers.SGD(lr=0.1)
    opt.setup(link)
    link.W.grad = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="update of parameter 'W'.*read-only"):
        opt.update()
    assert raw == snapshot


def test_load_npz_into_read_only_parameter_raises_and_loads_nothing(tmp_path):
    source = L.Linear(4, 3)
    source.W.array[...] = 5
    source.b.array[...] = 7
    path = str(tmp_path / "m.npz")
    serializers.save_npz(path, source)
    target = L.Linear(4, 3)
    target.b.array[...] = 1
    target.W.array = _flagged(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="load of 'W'.*read-only"):
        serializers.load_npz(path, target)
    np.testing.assert_array_equal(target.b.array, np.ones(3, np.float32))
    np.testing.assert_array_equal(target.W.array, np.zeros((3, 4), np.float32))


CHILD = textwrap.dedent("""
    import numpy as np, rensa
    from rensa import optimizers, serializers
    path = {path!r}
    np.save(path, np.arange(12, dtype=np.float32).reshape(3, 4))
    link = rensa.links.Linear(4, 3)
    link.W.array = np.load(path, mmap_mode="r")
    opt = optimizers.MomentumSGD(lr=0.1)
    opt.setup(link)
    link.W.grad = np.ones((3, 4), np.float32)
    try:
        opt.update()
    except ValueError as e:
        print("update:", e)
    try:
        link.W.array[0, 0] = 1
    except ValueError as e:
        print("setitem:", e)
    print("W[0,0] =", float(np.load(path)[0, 0]))
""")


def test_memory_mapped_parameter_does_not_crash(tmp_path):
    """np.load(mmap_mode='r') pages are not writeable: a write through them is a SIGSEGV."""
    code = CHILD.format(path=str(tmp_path / "w.npy"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "update: update of parameter 'W': assignment destination is read-only" in proc.stdout
    assert "setitem:" in proc.stdout and "read-only" in proc.stdout
    assert "W[0,0] = 0.0" in proc.stdout
