"""rensa: Chainer's API on a native C++ core.

A Chainer script runs on rensa after ``import chainer`` becomes ``import rensa as
chainer`` (and ``chainermn`` becomes ``rensa.distributed``). The names below are
Chainer's top-level ones; each lives in the module named beside its import.
"""
from rensa import _core
from rensa._core import __version__  # noqa: F401
from rensa._core import ndarray  # noqa: F401  device arrays (CPU ones are numpy arrays)

# Core and autograd: arrays, Variable, FunctionNode, modes, config, reporter.
from rensa.configuration import *  # noqa: F401,F403  config, global_config, using_config
from rensa.variable import *  # noqa: F401,F403  Variable, as_variable, as_array
from rensa.function_node import *  # noqa: F401,F403  FunctionNode, backward, grad, modes
from rensa.reporter import *  # noqa: F401,F403  report, report_scope, Reporter, Summary, DictSummary
from rensa.backend import get_array_types, get_cpu_array_types, is_arrays_compatible  # noqa: F401
from rensa.backend import get_device, using_device  # noqa: F401
from rensa.function import Function, FunctionAdapter  # noqa: F401
from rensa.runtime_info import print_runtime_info  # noqa: F401

# Links (Link, Chain, ChainList, Sequential, Parameter), link hooks, optimizer base classes.
from rensa.link import *  # noqa: F401,F403
from rensa.link_hook import LinkHook  # noqa: F401
from rensa.optimizer import GradientMethod, Optimizer, UpdateRule  # noqa: F401

# Submodules under Chainer's names.
from rensa import backend  # noqa: F401,E402
from rensa import backends  # noqa: F401,E402
from rensa import cuda  # noqa: F401,E402
from rensa import functions  # noqa: F401,E402
from rensa import links  # noqa: F401,E402
from rensa import link_hooks  # noqa: F401,E402
from rensa import initializers  # noqa: F401,E402
from rensa import optimizer  # noqa: F401,E402
from rensa import optimizers  # noqa: F401,E402
from rensa import optimizer_hooks  # noqa: F401,E402
from rensa import serializers  # noqa: F401,E402
from rensa import dataset  # noqa: F401,E402
from rensa import datasets  # noqa: F401,E402
from rensa import iterators  # noqa: F401,E402
from rensa import training  # noqa: F401,E402
from rensa import function_hooks  # noqa: F401,E402
from rensa import gradient_check  # noqa: F401,E402
from rensa import computational_graph  # noqa: F401,E402
from rensa import testing  # noqa: F401,E402
from rensa import utils  # noqa: F401,E402
from rensa import distributions  # noqa: F401,E402
from rensa.distribution import cross_entropy, Distribution, kl_divergence, register_kl  # noqa: F401,E402
# rensa.distributed (chainermn) is imported by scripts that use it; MPI starts only when a
# communicator is created.
