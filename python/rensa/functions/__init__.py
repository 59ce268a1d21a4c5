"""rensa.functions (F): Chainer's differentiable functions.

The functions are bound in C++ (rensa._core.functions) and called directly, so a call
costs no Python frame; _a and _b hold what is written in Python.
"""
from rensa._core.functions import *  # noqa: F401,F403
from rensa.functions._a import *  # noqa: F401,F403
from rensa.functions._b import *  # noqa: F401,F403
