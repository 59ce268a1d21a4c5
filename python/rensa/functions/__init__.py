"""rensa.functions (F): Chainer's differentiable functions.

Every function is C++ (rensa::functions), bound in rensa._core.functions and called
directly, so a call costs no Python frame and runs on every device.
"""
from rensa._core.functions import *  # noqa: F401,F403
