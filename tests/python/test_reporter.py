"""rensa.Reporter, report, report_scope (Chainer's reporter protocol)."""
import numpy
import pytest

import rensa


class Observer(object):
    pass


def test_report_into_scope_with_observer_prefix():
    reporter = rensa.Reporter()
    model = Observer()
    reporter.add_observer('main', model)
    observation = {}
    with reporter.scope(observation):
        rensa.report({'loss': rensa.Variable(numpy.array(1.5, numpy.float32))}, model)
        rensa.report({'plain': 2.0})
    assert sorted(observation) == ['main/loss', 'plain']
    assert float(observation['main/loss']) == 1.5
    assert float(observation['plain']) == 2.0
    assert isinstance(observation['plain'], rensa.Variable)


def test_add_observers_with_prefix():
    reporter = rensa.Reporter()
    a, b = Observer(), Observer()
    reporter.add_observers('main/', [('a', a), ('b', b)])
    observation = {}
    with reporter.scope(observation):
        reporter.report({'x': 1.0}, b)
    assert list(observation) == ['main/b/x']


def test_unregistered_observer_raises_key_error():
    reporter = rensa.Reporter()
    with reporter.scope({}):
        with pytest.raises(KeyError):
            rensa.report({'x': 1.0}, Observer())


def test_report_without_reporter_is_dropped():
    assert rensa.get_current_reporter() is None
    rensa.report({'x': 1.0})  # no error, as in Chainer


def test_with_reporter_makes_it_current():
    reporter = rensa.Reporter()
    with reporter:
        assert rensa.get_current_reporter() is reporter
    assert rensa.get_current_reporter() is None


def test_report_scope_collects_inner_values():
    reporter = rensa.Reporter()
    outer, inner = {}, {}
    with reporter.scope(outer):
        with rensa.report_scope(inner):
            rensa.report({'y': numpy.float32(3.0)})
        rensa.report({'z': 4.0})
    assert list(inner) == ['y'] and float(inner['y']) == 3.0
    assert sorted(outer) == ['y', 'z']


def test_report_scope_without_reporter_raises():
    with pytest.raises(ValueError):
        with rensa.report_scope({}):
            pass
