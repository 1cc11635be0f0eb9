"""Constants (Array API chapter "Constants"): Python floats, and `newaxis` (None)."""

from __future__ import annotations

import math

__all__ = ["e", "inf", "nan", "newaxis", "pi"]

e: float = math.e
inf: float = math.inf
nan: float = math.nan
pi: float = math.pi
newaxis: None = None
