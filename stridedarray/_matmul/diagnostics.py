"""Private diagnostics of the C core: allocation accounting and fault injection.

Every heap block the C core allocates goes through one allocator (csrc/core/base/alloc.c)
that counts, per category and thread-safely:

- ``"pack"``: operand packs and dtype casts made by matmul (the bytes that
  ``matmul_explain(...)["payload_bytes"]`` predicts);
- ``"scratch"``: panels internal to the generic kernels (small ones live on the stack and are
  not counted).

``c_alloc_stats()`` returns, per category, ``current`` (bytes held now), ``peak`` (largest
``current`` since import or the last ``reset_c_alloc_peak()``), ``allocations`` and ``frees``
(counts). Output arrays are allocated by NumPy and are not counted here (use tracemalloc).

``fail_c_alloc_after(n)`` is a context manager for tests: inside it, the (n+1)-th C allocation
fails as if the system were out of memory (matmul then raises MemoryError); it is always
disarmed on exit. The counters are process-wide, so measurements assume no other thread is
calling into the C core meanwhile.

Private: for the test suite and for investigating memory use; not part of the Array API.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .ffi import ffi, lib

__all__ = ["c_alloc_stats", "reset_c_alloc_peak", "fail_c_alloc_after"]

_CATEGORIES = (("pack", lib.SA_ALLOC_PACK), ("scratch", lib.SA_ALLOC_SCRATCH))
_FIELDS = (
    ("current", lib.SA_ALLOC_CURRENT),
    ("peak", lib.SA_ALLOC_PEAK),
    ("allocations", lib.SA_ALLOC_COUNT),
    ("frees", lib.SA_ALLOC_FREES),
)


def c_alloc_stats() -> dict[str, dict[str, int]]:
    """The C core's allocation counters: {"pack"|"scratch": {current, peak, allocations, frees}}."""
    buf = ffi.new("int64_t[]", lib.SA_ALLOC_NSTATS)
    lib.sa_alloc_stats(buf)
    n = lib.SA_ALLOC_NFIELDS
    return {
        name: {field: int(buf[cat * n + f]) for field, f in _FIELDS} for name, cat in _CATEGORIES
    }


def reset_c_alloc_peak() -> None:
    """Set every category's peak to its current bytes (the start of a measurement)."""
    lib.sa_alloc_reset_peak()


@contextmanager
def fail_c_alloc_after(n: int) -> Iterator[None]:
    """Within the block, the (n+1)-th C core allocation fails (n >= 0); disarmed on exit."""
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < 2**63:  # C int64_t
        raise ValueError(f"fail_c_alloc_after: n must be a non-negative int below 2**63, got {n!r}")
    lib.sa_alloc_fail_after(n)
    try:
        yield
    finally:
        lib.sa_alloc_fail_after(-1)
