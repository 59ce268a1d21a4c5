"""Writes numpy2_none.npz: what Chainer's save_npz writes with numpy 2.x for an object
shaped like rensa::testing::Tiny whose child/lazy is uninitialised (None).

numpy 2.x pickles object arrays with protocol 4 (numpy 1.17-1.26: protocol 3, older:
protocol 2), so its None member differs from numpy 1.x's. Run with numpy >= 2.0:
    python make_numpy2_none.py
"""
import numpy as np

assert int(np.__version__.split(".")[0]) >= 2, np.__version__
np.savez_compressed(
    "numpy2_none.npz",
    **{
        "W": np.arange(6, dtype=np.float32).reshape(2, 3) / 2,
        "b": np.array([-1.0, 0.0, 1.0], dtype=np.float32),
        "t": np.array(11),
        "lr": np.array(0.25),
        "flag": np.array(True),
        "child/m": np.arange(4, dtype=np.int32).reshape(2, 2) * 3,
        "child/lazy": np.array(None, dtype=object),
        "child/count": np.array(42),
    },
)
