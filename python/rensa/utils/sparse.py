"""chainer.utils.sparse: the COO sparse matrix F.sparse_matmul takes (C++, rensa::functions)."""
from rensa._core.sparse import CooMatrix  # noqa: F401
from rensa._core.sparse import get_order  # noqa: F401
from rensa._core.sparse import to_coo  # noqa: F401
