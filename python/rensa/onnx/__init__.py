"""Export of a model to ONNX (onnx-chainer's and ``torch.onnx.export``'s role).

``rensa.onnx.export(model, args, filename)`` runs the model once on ``args`` in test mode,
records every function it applied (define-by-run: the graph is what ran), maps each to
ONNX operators, stores the parameters as initializers and checks the model with
``onnx.checker``. The ``onnx`` package is an optional dependency: ``pip install
rensa[onnx]``; importing rensa (or this module) does not import it.
"""
import io
import os

import numpy

import rensa
from rensa import _core

DEFAULT_OPSET = 17
SUPPORTED_OPSETS = range(13, 21)


class UnsupportedFunctionError(NotImplementedError):
    """Raised by :func:`export` for the first recorded function it cannot map to ONNX."""


def _import_onnx():
    try:
        import onnx  # noqa: F401
    except ImportError as e:
        raise ImportError('rensa.onnx.export needs the onnx package: pip install rensa[onnx] '
                          '(or pip install "onnx>=1.16")') from e
    from rensa.onnx import _export
    return _export


def supported_functions():
    """The labels of the functions :func:`export` maps (a sorted list; needs onnx)."""
    return sorted(_import_onnx().converters())


def export(model, args, filename=None, opset_version=None, input_names=None, output_names=None,
           dynamic_axes=None, graph_name='rensa'):
    """Exports ``model`` called on ``args`` to an ONNX model and returns it (an ``onnx.ModelProto``).

    Args:
        model: a callable (a Link or any function of Variables) run once on ``args`` under
            ``using_config('train', False)`` and ``no_backprop_mode()``.
        args: the inputs: an ndarray, a numpy array, a Variable, or a tuple/list of them.
        filename: where to write the model (a path or a binary file object); None writes nothing.
        opset_version: the ONNX opset, 13 to 20 (default 17).
        input_names: the graph inputs' names (default ``input_0``, ``input_1``, ...).
        output_names: the graph outputs' names (default ``output_0``, ...); the model may
            return a Variable or array, or a tuple/list/dict of them (a dict's keys are the
            default names).
        dynamic_axes: as in ``torch.onnx.export``: ``{name: {axis: 'dim_name'}}`` or
            ``{name: [axis, ...]}`` for inputs and outputs whose lengths vary (a batch size).
        graph_name: the ONNX graph's name.

    Raises:
        ImportError: the onnx package is missing.
        UnsupportedFunctionError: a function has no ONNX mapping (the message names it, its
            inputs and where the mapped ones are listed).
        ValueError: a bad opset_version, names or dynamic_axes.
    """
    _export = _import_onnx()
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if not isinstance(opset, int) or opset not in SUPPORTED_OPSETS:
        raise ValueError('rensa.onnx.export: opset_version {!r} is not supported; expected an int from {} to {}'
                         .format(opset_version, SUPPORTED_OPSETS[0], SUPPORTED_OPSETS[-1]))
    inputs = list(args) if isinstance(args, (tuple, list)) else [args]
    with rensa.using_config('train', False), rensa.no_backprop_mode():
        result, records = _core._record_functions(lambda: model(*inputs))
    model_proto = _export.build_model(model, inputs, result, records, opset, input_names, output_names,
                                      dynamic_axes, graph_name)
    if filename is not None:
        data = model_proto.SerializeToString()
        if isinstance(filename, (str, bytes, os.PathLike)):
            with open(filename, 'wb') as f:
                f.write(data)
        elif isinstance(filename, io.TextIOBase):
            raise TypeError('rensa.onnx.export: filename must be a path or a binary file object, got a text file')
        else:
            filename.write(data)
    return model_proto


def _numpy(a):
    """A host numpy copy or view of an ndarray, numpy array or Variable."""
    if isinstance(a, rensa.Variable):
        a = a.array
    if isinstance(a, numpy.ndarray):
        return a
    return numpy.asarray(rensa.backend.to_cpu(a))


__all__ = ['export', 'supported_functions', 'UnsupportedFunctionError']
