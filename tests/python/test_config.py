"""rensa.config, global_config, using_config (thread-local like Chainer's)."""
import threading

import numpy
import pytest

import rensa


def test_defaults():
    assert rensa.config.train is True
    assert rensa.config.enable_backprop is True
    assert rensa.config.debug is False
    assert rensa.config.dtype == numpy.float32
    assert rensa.config.type_check is True
    assert rensa.global_config.use_cudnn == 'auto'


@pytest.mark.parametrize('name,value', [('train', False), ('debug', True), ('enable_backprop', False),
                                        ('dtype', numpy.dtype(numpy.float16)), ('user_entry', 42)])
def test_using_config_sets_and_restores(name, value):
    old = getattr(rensa.config, name, None)
    with rensa.using_config(name, value):
        assert getattr(rensa.config, name) == value
    assert getattr(rensa.config, name, None) == old


def test_using_config_enable_backprop_stops_graph():
    x = rensa.Variable(numpy.ones(1000, numpy.float32))
    with rensa.using_config('enable_backprop', False):
        assert (x * 2).creator is None


def test_unknown_entry_raises_attribute_error():
    with pytest.raises(AttributeError):
        rensa.config.no_such_entry


def test_local_config_is_per_thread():
    seen = []
    with rensa.using_config('train', False), rensa.using_config('user_entry', 1):
        t = threading.Thread(target=lambda: seen.append((rensa.config.train,
                                                         getattr(rensa.config, 'user_entry', None))))
        t.start()
        t.join()
        assert rensa.config.train is False
    assert seen == [(True, None)]


def test_global_config_is_the_default_of_new_threads():
    seen = []
    rensa.global_config.user_default = 'x'
    try:
        t = threading.Thread(target=lambda: seen.append(rensa.config.user_default))
        t.start()
        t.join()
    finally:
        del rensa.global_config.user_default
    assert seen == ['x']


def test_show_lists_entries():
    import io
    out = io.StringIO()
    rensa.config.show(out)
    text = out.getvalue()
    assert 'train' in text and 'enable_backprop' in text and 'dtype' in text
