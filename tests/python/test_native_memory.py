"""The native allocator's cache and the process's footprint (issue 24, item 4): freed blocks
go to the cache, not the system, while the cache stays under its limit (Note [Native cache
limit] in core/native/native_allocator.cc); `import rensa` stays small."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rensa
import rensa.functions as F
import rensa.links as L

stats = rensa._core.native_memory_stats
MIB = 1 << 20


@pytest.fixture
def limit():
    """Sets the cache limit for one test and restores it after."""
    old = stats()['cache_limit']
    yield rensa._core.native_set_cache_limit
    rensa._core.native_set_cache_limit(old)


def run(code, **env):
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **env)
    return subprocess.run([sys.executable, '-c', code], env=environ, capture_output=True, text=True, timeout=120)


def test_stats_report_the_default_limit():
    s = stats()
    assert set(s) == {'allocated_bytes', 'cached_bytes', 'peak_allocated_bytes', 'num_allocs', 'num_cache_hits',
                      'cache_limit'}
    if 'RENSA_NATIVE_CACHE_LIMIT' not in os.environ:
        assert s['cache_limit'] == 1 << 30
    assert 0 <= s['cached_bytes'] <= s['cache_limit']


def test_cached_bytes_stay_under_the_limit(limit):
    limit(2 * MIB)
    xs = [np.full((64, 1024 + 16 * i), 1.0, np.float32) for i in range(40)]  # ~11 MiB of outputs, many classes
    before = stats()
    ys = [F.relu(x) for x in xs]
    held = stats()['allocated_bytes'] - before['allocated_bytes']
    assert held >= 10 * MIB
    del ys
    after = stats()
    assert after['allocated_bytes'] == before['allocated_bytes']
    assert after['cached_bytes'] <= 2 * MIB
    assert after['cached_bytes'] >= MIB  # filled up to the limit, the rest given back
    limit(MIB // 2)
    assert stats()['cached_bytes'] <= MIB // 2
    rensa._core.native_empty_cache()
    assert stats()['cached_bytes'] == 0


def test_negative_limit_is_refused():
    with pytest.raises(ValueError, match='set_cache_limit: Expect: bytes >= 0, Actual: -1'):
        rensa._core.native_set_cache_limit(-1)


def test_training_steps_take_their_blocks_from_the_cache():
    model = L.Classifier(rensa.Sequential(L.Linear(20, 30), F.relu, L.Linear(30, 5)))
    optimizer = rensa.optimizers.Adam()
    optimizer.setup(model)
    x = np.random.rand(8, 20).astype(np.float32)
    t = np.arange(8, dtype=np.int32) % 5

    def step():
        model.cleargrads()
        loss = model(x, t)
        loss.backward()
        optimizer.update()
    for _ in range(3):
        step()
    before = stats()
    for _ in range(5):
        step()
    after = stats()
    assert after['num_allocs'] > before['num_allocs']
    # Every block of a step after the first few is one an earlier step freed.
    assert after['num_allocs'] - after['num_cache_hits'] == before['num_allocs'] - before['num_cache_hits']


def test_environment_sets_the_limit():
    r = run('import rensa; print(rensa._core.native_memory_stats()["cache_limit"])',
            RENSA_NATIVE_CACHE_LIMIT='12345')
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == '12345'


def test_rss_after_import_is_small():
    code = '''import os, rensa
with open('/proc/self/statm') as f:
    print(int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE'))'''
    r = run(code)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) <= 80 * MIB, 'RSS after import rensa: {:.1f} MiB'.format(int(r.stdout) / MIB)
