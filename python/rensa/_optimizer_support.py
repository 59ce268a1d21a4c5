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
    """The rule's state arrays by name (Chainer's ``UpdateRule.state``): a mutable mapping of numpy
    views; an array assigned is aliased, so in-place edits reach the rule. Empty until the first
    update (or a load)."""
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


# --- Chainer's loss-scaling helpers and use_cleargrads -----------------------------------

_loss_scaling = _opt.Optimizer.loss_scaling


def _loss_scaling_recorded(self, interval=1000, scale=None):
    """Configures loss scaling (Chainer's ``Optimizer.loss_scaling``).

    The loss is multiplied by the scale before backward and the update rules divide it out.
    With ``scale=None`` the scaling is dynamic (Chainer 7's rules): it starts at 1; a step whose
    gradients hold Inf or NaN skips the parameter update and halves the scale; clean steps grow it
    (``interval`` clean steps double it after the first overflow), within ``[1, 65504]``. A given
    ``scale`` is static.

    :param interval: The number of clean steps that double a dynamic scale.
    :param scale: A static loss scale, or None for dynamic scaling.
    """
    _loss_scaling(self, interval, scale)
    object.__setattr__(self, '_loss_scaling_is_dynamic', scale is None)


def _set_loss_scale(self, loss_scale):
    """Sets a static loss scale (Chainer's Optimizer.set_loss_scale)."""
    self.loss_scaling(scale=loss_scale)


def _check_nan_in_grads(self):
    """Under dynamic loss scaling, notes (and warns) when a grad holds Inf or NaN; what
    ``is_safe_to_update`` then answers (Chainer's Optimizer.check_nan_in_grads)."""
    import warnings

    import numpy
    object.__setattr__(self, '_loss_scaling_isnan', False)
    if not self.__dict__.get('_loss_scaling_is_dynamic', False):
        return
    for name, param in self.target.namedparams():
        grad = param.grad
        if grad is not None and not numpy.all(numpy.isfinite(numpy.asarray(grad))):
            object.__setattr__(self, '_loss_scaling_isnan', True)
            warnings.warn('Non finite number found in param.grad of {} (iteration: {}, loss_scale: {})'.format(
                name, self.t, self.loss_scale))


def _is_safe_to_update(self):
    """False when :meth:`check_nan_in_grads` found Inf or NaN in a gradient under dynamic loss
    scaling (Chainer's ``Optimizer.is_safe_to_update``)."""
    return not self.__dict__.get('_loss_scaling_isnan', False)


def _use_cleargrads(self, use=True):
    """Deprecated in Chainer since v2: update() clears the grads with cleargrads already."""
    import warnings
    warnings.warn('GradientMethod.use_cleargrads is deprecated.', DeprecationWarning)
    if not use:
        raise NotImplementedError('use_cleargrads(False): rensa always clears grads with cleargrads (zerograds '
                                  'would only cost time)')


_opt.Optimizer.loss_scaling = _loss_scaling_recorded
_opt.Optimizer.set_loss_scale = _set_loss_scale
_opt.Optimizer.check_nan_in_grads = _check_nan_in_grads
_opt.Optimizer.is_safe_to_update = _is_safe_to_update
_opt.GradientMethod.use_cleargrads = _use_cleargrads
