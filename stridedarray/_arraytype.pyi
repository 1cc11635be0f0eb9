# The array type (csrc/arraytype/): the descriptor fields and caches Array inherits, and the
# one validating constructor. Read-only from Python.
from collections.abc import Callable, Iterator
from typing import Any, Generic, Self, TypeVar

import numpy as np

from ._dtypes import DType

# The namespace's native functions below are generic in their Python fallback's type, and are
# called with its signature: `f = NativeFunction(f, "kind")` keeps `f`'s for type checkers.
_F = TypeVar("_F", bound=Callable[..., Any])

class _Storage:
    """The memory an array views: a C-contiguous aligned ndarray, shared by views."""

    def __init__(self, arr: np.ndarray) -> None: ...
    @property
    def arr(self) -> np.ndarray: ...
    @property
    def nbuf(self) -> int: ...

class ArrayBase:
    """The array's descriptor: storage, dtype, shape, strides, origin (immutable)."""

    @property
    def _st(self) -> _Storage: ...
    @property
    def _dtype(self) -> DType: ...
    @property
    def _shape(self) -> tuple[int, ...]: ...
    @property
    def _strides(self) -> tuple[int, ...]: ...
    @property
    def _origin(self) -> int: ...
    @property
    def _np(self) -> np.ndarray: ...
    @property
    def _npv(self) -> np.ndarray | None: ...
    @property
    def _c(self) -> Any: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def ndim(self) -> int: ...
    def _view(self, shape: tuple, strides: tuple, origin: int, /) -> Any: ...
    def __getitem__(self, key: Any, /) -> Self: ...
    def __iter__(self) -> Iterator[Self]: ...
    @property
    def mT(self) -> Self: ...
    @property
    def T(self) -> Self: ...
    def __buffer__(self, flags: int, /) -> memoryview: ...

def _make(
    st: _Storage,
    dtype: DType,
    shape: tuple,
    strides: tuple,
    origin: int,
    npv: np.ndarray | None = None,
    /,
) -> Any: ...
def _make_c(arr: np.ndarray, dtype: DType, /) -> Any: ...
def _connect(table: dict[str, Any], /) -> None: ...
def _elided() -> int: ...
def _quiet_call(f: Any, /, *args: Any, **kwargs: Any) -> Any: ...
def _wrap(arr: np.ndarray | np.generic, /) -> Any: ...
def _view_ndarray(arr: np.ndarray, /) -> Any: ...

class NativeUfunc(Generic[_F]):
    """An element-wise function or operator in C (on a NumPy ufunc) for the common operands,
    with the Python function or operator as its fallback."""

    def __init__(
        self,
        ufunc: Any,
        fallback: _F,
        kinds: str,
        loud: str,
        nargs: int,
        reflected: bool,
        via_float64: bool,
        *,
        elide: bool = False,
    ) -> None: ...
    __call__: _F

class NativeFunction(Generic[_F]):
    """asarray/zeros/ones/empty/full/reshape (`kind`) in C for their common call, the Python
    function as fallback."""

    def __init__(self, fallback: _F, kind: str) -> None: ...
    __call__: _F

class NativeMatmul(Generic[_F]):
    """matmul in C for two arrays of one numeric dtype, the Python function as fallback."""

    def __init__(self, fallback: _F) -> None: ...
    __call__: _F
