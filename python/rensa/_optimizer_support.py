"""What rensa.optimizer adds to the C++ optimizer classes in Python.

- ``UpdateRule.state``: a mutable mapping over the rule's state arrays (numpy views; an
  array assigned is aliased), so a Python UpdateRule's ``init_state`` can write
  ``self.state['v'] = numpy.zeros_like(param.data)`` as in Chainer.
- copy.copy, copy.deepcopy and pickle of optimizers. An optimizer is rebuilt from its class,
  its hyperparameters, its target, ``t``/``epoch`` and each parameter's rule (``t``,
  ``enabled`` and the state). copy.copy keeps the same target and aliases the state arrays;
  copy.deepcopy copies the target (a link's deepcopy) and the state; pickle stores both.
  Hooks are not carried (they may be arbitrary Python objects): a copy has none.
"""
import collections.abc

from rensa import _core
from rensa import _link_copy

_opt = _core.optimizers


class UpdateRuleState(collections.abc.MutableMapping):
    """An UpdateRule's state arrays by name (Chainer's ``UpdateRule.state`` dict)."""

    def __init__(self, rule):
        self._rule = rule

    def __getitem__(self, key):
        return self._rule._state_get(key)

    def __setitem__(self, key, value):
        self._rule._state_set(key, value)

    def __delitem__(self, key):
        self._rule._state_del(key)

    def __iter__(self):
        return iter(self._rule._state_keys())

    def __len__(self):
        return len(self._rule._state_keys())

    def __repr__(self):
        return repr(dict(self.items()))


def _state(rule):
    return UpdateRuleState(rule)


_opt.UpdateRule.state = property(_state)


def _rebuild_optimizer(cls, hyperparams, target, t, epoch, rules, attributes):
    opt = cls.__new__(cls)
    _link_copy.core_base(cls).__init__(opt)
    for name, value in hyperparams.items():
        setattr(opt.hyperparam, name, float(value))
    if target is not None:
        opt.setup(target)
        params = dict(target.namedparams())
        for path, (rule_t, enabled, state) in rules.items():
            rule = params[path].update_rule
            rule.t = rule_t
            rule.enabled = enabled
            for key, array in state.items():
                rule.state[key] = array
    opt.t = t
    opt.epoch = epoch
    for key, value in attributes.items():
        object.__setattr__(opt, key, value)
    return opt


def reduce_optimizer(opt):
    """``__reduce__`` of every optimizer (see the module's docstring)."""
    target = opt.target
    rules = {}
    if target is not None:
        for path, param in target.namedparams():
            rule = param.update_rule
            if rule is not None:
                rules[path] = (rule.t, rule.enabled, dict(rule.state.items()))
    return _rebuild_optimizer, (type(opt), opt.hyperparam.get_dict(), target, opt.t, opt.epoch, rules,
                                dict(getattr(opt, '__dict__', {})))


_opt.Optimizer.__reduce__ = reduce_optimizer
