"""pytest plugin: adds stridedarray to scikit-learn's array-API test namespaces.

Load it with ``-p stridedarray_sklearn`` (this directory on ``PYTHONPATH``) when running
scikit-learn's own tests, e.g. ``pytest --pyargs sklearn -k array_api``. It changes nothing in
the installed scikit-learn: it wraps the two generators that scikit-learn's test modules use to
parametrize their array-API tests, before any test module is imported (plugins given with
``-p`` load before collection). Test modules bind the generators with ``from ... import``, so the
wrapped versions are also set on any module that already holds the originals.

* ``yield_namespaces()`` also yields ``"stridedarray"``;
* ``yield_namespace_device_dtype_combinations()`` also yields ``("stridedarray", None,
  "float64")`` and ``("stridedarray", None, "float32")`` (array-api-strict gets one of each
  dtype too; stridedarray has a single device, so the device is None, the default).

scikit-learn's ``_array_api_for_tests("stridedarray", None, dtype)`` then imports the module,
asks ``array_api_compat.get_namespace`` for the namespace of ``stridedarray.asarray(1)`` (found
through ``__array_namespace__``) and checks float64 support through
``__array_namespace_info__().dtypes(...)``: no special case is needed.
"""

from __future__ import annotations

import functools
import os
import sys

# scikit-learn skips every array-API test unless SciPy's array-API support is enabled, and
# that must happen before SciPy is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import sklearn.utils._array_api as _sk_array_api  # noqa: E402

NAMESPACE = "stridedarray"
DTYPES = ("float64", "float32")

_orig_namespaces = _sk_array_api.yield_namespaces
_orig_combinations = _sk_array_api.yield_namespace_device_dtype_combinations


@functools.wraps(_orig_namespaces)
def yield_namespaces(include_numpy_namespaces=True):
    yield from _orig_namespaces(include_numpy_namespaces=include_numpy_namespaces)
    yield NAMESPACE


@functools.wraps(_orig_combinations)
def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
    # The original calls the module's yield_namespaces, which now also yields stridedarray
    # (as its catch-all (name, None, None)); replace that entry by one per dtype.
    for combination in _orig_combinations(include_numpy_namespaces=include_numpy_namespaces):
        if combination[0] == NAMESPACE:
            continue
        yield combination
    for dtype in DTYPES:
        yield NAMESPACE, None, dtype


_replacements = (
    (_orig_namespaces, yield_namespaces),
    (_orig_combinations, yield_namespace_device_dtype_combinations),
)
for _module in list(sys.modules.values()):
    if _module is None or not getattr(_module, "__name__", "").startswith("sklearn"):
        continue
    for _name, _value in list(vars(_module).items()):
        for _orig, _new in _replacements:
            if _value is _orig:
                setattr(_module, _name, _new)
