"""rensa.training (chainer.training): Trainer, updaters, triggers, extensions.

The loop runs in C++ with the GIL released; Python extensions, triggers, updaters
(``update_core``), converters and loss functions are called back with the GIL taken.
"""
from rensa._core.training import Trainer, Updater, Trigger  # noqa: F401
from rensa.training.extension import (  # noqa: F401
    Extension, make_extension, PRIORITY_WRITER, PRIORITY_EDITOR, PRIORITY_READER)
from rensa.training import triggers  # noqa: F401,E402
from rensa.training import updaters  # noqa: F401,E402
from rensa.training import extensions  # noqa: F401,E402
from rensa.training.triggers import get_trigger  # noqa: F401,E402
from rensa.training.updaters import ParallelUpdater  # noqa: F401,E402
from rensa.training.updaters import StandardUpdater  # noqa: F401,E402

__all__ = ['Trainer', 'Updater', 'StandardUpdater', 'ParallelUpdater', 'Extension', 'make_extension',
           'PRIORITY_WRITER', 'PRIORITY_EDITOR', 'PRIORITY_READER', 'get_trigger',
           'triggers', 'updaters', 'extensions']
