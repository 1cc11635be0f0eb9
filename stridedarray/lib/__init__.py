"""`stridedarray.lib`: where NumPy keeps functions of `numpy.lib` that array-API consumers
reach on their backend's namespace (xarray's rolling windows call
`xp.lib.stride_tricks.sliding_window_view`). Beyond the standard (docs/functions.md,
"Beyond the standard"). It loads on first use, as `fft` and `linalg` do.
"""

from __future__ import annotations

import sys as _sys

from .. import _pickle
from . import stride_tricks

__all__ = ["stride_tricks"]


def __getattr__(name: str) -> object:
    from .._base.numpy_names import missing

    raise missing(__name__, name)


def __dir__() -> list[str]:
    return sorted(__all__)


_pickle.publish([_sys.modules[__name__]])
