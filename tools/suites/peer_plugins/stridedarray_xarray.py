"""pytest plugin: adds stridedarray, NumPy and array-api-strict to xarray's duck-array tests.

Load it with ``-p stridedarray_xarray`` (this directory on ``PYTHONPATH``) when running
``pytest --pyargs xarray.tests.test_duck_array_wrapping``. That module parametrizes its test
classes over ``NAMESPACES``, built from the table ``NAMESPACE_ARRAYS`` (a namespace module, the
name of its array class and of its constructor, and the methods expected to fail with it).
Plugins given with ``-p`` load before collection, so this imports the module first and adds
three rows, with no expected failures, and their parameters; pytest then imports the same
module object (``xarray.tests`` is a package) and parametrizes over the longer list. The
installed xarray is not modified.

* ``stridedarray``: ``stridedarray.Array``, ``stridedarray.asarray``;
* ``numpy``: ``numpy.ndarray``, ``numpy.asarray``, the reference (xarray's own tests run NumPy
  everywhere else, but not through this table);
* ``array_api_strict``: ``asarray``; the table wants the array class as an attribute of the
  namespace, which array-api-strict does not export, so ``array_api_strict.Array`` is set to
  its ``_array_object.Array`` in this process.
"""

from __future__ import annotations

import array_api_strict
import pytest
import xarray.tests.test_duck_array_wrapping as _duck
from array_api_strict import _array_object

if not hasattr(array_api_strict, "Array"):
    array_api_strict.Array = _array_object.Array  # type: ignore[attr-defined]

ADDED = {
    "stridedarray": ("Array", "asarray"),
    "numpy": ("ndarray", "asarray"),
    "array_api_strict": ("Array", "asarray"),
}

for _name, (_array, _constructor) in ADDED.items():
    if _name not in _duck.NAMESPACE_ARRAYS:
        _duck.NAMESPACE_ARRAYS[_name] = {
            "attrs": {"array": _array, "constructor": _constructor},
            "xfails": {},
        }
        _duck.NAMESPACES.append(pytest.param(_name))
