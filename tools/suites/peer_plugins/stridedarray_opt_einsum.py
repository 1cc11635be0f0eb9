"""pytest plugin: adds stridedarray and array-api-strict to opt_einsum's backend-parametrized tests.

Load it with ``-p stridedarray_opt_einsum`` (this directory on ``PYTHONPATH``) when running
``pytest --pyargs opt_einsum.tests.test_sharing``. That module parametrizes its tests over the
list ``backends`` (numpy, torch, cupy: the name opt_einsum's ``backend=`` takes, which it
imports as a module and calls ``tensordot``, ``transpose`` and ``einsum`` on) and converts the
NumPy operands of the tests with ``to_backend[name]``. This appends "stridedarray" and
"array_api_strict" to the list, with ``asarray`` as their conversion, before collection (plugins
given with ``-p`` load first). A test's NumPy operands are converted where the test converts
them, and handed over as NumPy arrays where the test hands NumPy arrays to any backend (as
opt_einsum's users do). The installed opt_einsum is not modified.
"""

from __future__ import annotations

import array_api_strict
import opt_einsum.tests.test_sharing as _sharing

import stridedarray

for _name, _asarray in (
    ("stridedarray", stridedarray.asarray),
    ("array_api_strict", array_api_strict.asarray),
):
    if _name not in _sharing.backends:
        _sharing.backends.append(_name)
        _sharing.to_backend[_name] = _asarray
