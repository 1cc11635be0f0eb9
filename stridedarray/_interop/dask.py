"""stridedarray arrays as Dask chunks: the registrations Dask offers to third-party array types.

Dask computes on any "NumPy-like" chunk type. Most of what it asks of a chunk, our arrays
already answer through NumPy's protocols (NEP 13/18, `_numpy_dispatch`) and NumPy's methods
(`_ndarray_methods`). What remains goes through Dask's own extension points, registered here:

* `dask.array.register_chunk_type(ArrayBase)`: a Dask array and a stridedarray array combine
  (`dask_array + x`) with the Dask array in charge, instead of both declining;
* `tensordot_lookup`: `da.tensordot`/`da.dot` contract chunks with stridedarray's tensordot,
  which runs on the planned matmul core;
* `numel_lookup`/`nannumel_lookup`: the element counts of `mean`/`var` reductions stay our
  arrays instead of being coerced to ndarray;
* `dask.sizeof.sizeof`: the bytes a chunk holds (its elements' window in the buffer, a
  broadcast counted once), which Dask's memory accounting and spilling read.

Tokenization needs no registration: `Array.__dask_tokenize__` (in `_array/convert.py`) hashes
dtype, shape and values, so the same array gets the same token every time.

When this runs: at `import stridedarray` if `dask.array` is already imported, otherwise right
after `dask.array` finishes importing, whatever the order of imports and whoever looked
`dask.array` up before (an import hook that stays until registration, `_AfterDaskArray`).
Nothing in Dask is patched; every registration is one Dask documents for other array
libraries.
"""

from __future__ import annotations

import _thread
import sys
from typing import TYPE_CHECKING, Any

from .._base.construct import ArrayBase
from .._base.descriptor import _offset_range

if TYPE_CHECKING:
    from .._array.array import Array


__all__ = ["register", "install"]

_registered = False


def _chunk_nbytes(x: Array) -> int:
    """Bytes of memory a chunk keeps alive for its elements: the window of its buffer that
    holds them (a step-two view counts its gaps, a broadcast its one copy), at most the
    whole buffer; a small view of a huge buffer counts only its own window."""
    if x.size == 0:
        return 0
    lo, hi = _offset_range(x.shape, x.strides, x.origin)
    return (hi - lo + 1) * x.dtype.itemsize


def _tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """Dask's tensordot on chunks: stridedarray's when both are arrays of one numeric dtype."""
    import numpy as np

    from .._api.creation import asarray
    from .._api.linalg_functions import tensordot

    a = asarray(a) if isinstance(a, np.ndarray) else a
    b = asarray(b) if isinstance(b, np.ndarray) else b
    if (
        isinstance(a, ArrayBase)
        and isinstance(b, ArrayBase)
        and a.dtype is b.dtype
        and a.dtype.kind != "b"
    ):
        if isinstance(axes, int):
            return tensordot(a, b, axes=axes)
        return tensordot(a, b, axes=(tuple(axes[0]), tuple(axes[1])))
    return np.tensordot(a, b, axes=axes)


def _numel(x: Array, **kwargs: Any) -> Any:
    """Element count of a chunk along `axis` (Dask's mean/var reductions), as one of our
    arrays of `dtype` (default float64), shaped as the reduction with `keepdims`."""
    import math

    import numpy as np

    shape = x.shape
    keepdims = kwargs.get("keepdims", False)
    axis = kwargs.get("axis")
    dtype = kwargs.get("dtype", np.float64)
    if axis is None:
        axes = set(range(len(shape)))
    else:
        axes = {a % len(shape) for a in (axis if isinstance(axis, tuple | list) else [axis])}
    count = math.prod(shape[a] for a in axes)
    if keepdims:
        out_shape = tuple(1 if k in axes else n for k, n in enumerate(shape))
    else:
        out_shape = tuple(n for k, n in enumerate(shape) if k not in axes)
    return np.full_like(x, count, shape=out_shape, dtype=dtype)


def _nannumel(x: Array, **kwargs: Any) -> Any:
    """Count of the chunk's non-NaN elements (Dask's nanmean/nanvar reductions)."""
    import numpy as np

    return np.sum(~np.isnan(x), **kwargs)


def register() -> None:
    """Register stridedarray's Array with Dask (idempotent); needs `dask.array` importable."""
    global _registered
    if _registered:
        return
    _registered = True
    _remove_hook()
    from dask.array.chunk_types import register_chunk_type
    from dask.array.dispatch import nannumel_lookup, numel_lookup, tensordot_lookup
    from dask.sizeof import sizeof

    register_chunk_type(ArrayBase)
    tensordot_lookup.register(ArrayBase, _tensordot)
    numel_lookup.register(ArrayBase, _numel)
    nannumel_lookup.register(ArrayBase, _nannumel)
    sizeof.register(ArrayBase, _chunk_nbytes)


def _register_after_import() -> None:
    """`register()` from inside the import of `dask.array`: a failure must not break that
    import (a Dask without one of the extension points), so it warns instead."""
    try:
        register()
    except Exception as e:  # noqa: BLE001 - any failure of a foreign library's API
        import warnings

        warnings.warn(
            f"stridedarray could not register its arrays with Dask ({e!r}); "
            "Dask arrays and stridedarray arrays will not combine",
            RuntimeWarning,
            stacklevel=2,
        )


# A meta path finder needs only find_spec: not deriving from importlib.abc.MetaPathFinder, and
# taking threading's local from _thread, keeps importlib.abc (which on 3.11 imports
# importlib.resources, tempfile, shutil, random and the compressors) and threading out of
# `import stridedarray`.
class _AfterDaskArray:
    """Finds nothing itself: every spec the other finders return for `dask.array` gets its
    loader's `exec_module` wrapped, so that `register()` runs once the module has finished
    executing. It stays on `sys.meta_path` until registration has happened, because a spec
    can be found and never used: `importlib.util.find_spec("dask.array")` (a probe for an
    optional dependency) runs the finders without importing anything."""

    def __init__(self) -> None:
        self._asking = _thread._local()  # set while this finder asks the others

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "dask.array" or getattr(self._asking, "on", False):
            return None
        import importlib.util  # here: only an import of dask.array gets this far

        self._asking.on = True
        try:
            spec = importlib.util.find_spec(fullname)  # the others; this one answers None
        finally:
            self._asking.on = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        exec_module = loader.exec_module
        if getattr(exec_module, "_registers_stridedarray", False):
            return spec  # a loader shared between specs, wrapped already

        def exec_then_register(module: Any) -> None:
            exec_module(module)
            _register_after_import()

        exec_then_register._registers_stridedarray = True  # type: ignore[attr-defined]
        loader.exec_module = exec_then_register  # type: ignore[method-assign]
        return spec


def _remove_hook() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterDaskArray)]


def install() -> None:
    """Register now if `dask.array` is imported, else when it is (called by the package)."""
    if "dask.array" in sys.modules and hasattr(sys.modules["dask.array"], "Array"):
        register()
    elif not any(isinstance(f, _AfterDaskArray) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterDaskArray())
