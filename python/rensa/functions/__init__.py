"""rensa.functions (F): Chainer's differentiable functions.

The functions are bound in C++ (rensa._core.functions) and called directly, so a call
costs no Python frame; _a holds what is written in Python.
"""
from rensa._core.functions import *  # noqa: F401,F403
from rensa.functions._a import *  # noqa: F401,F403
