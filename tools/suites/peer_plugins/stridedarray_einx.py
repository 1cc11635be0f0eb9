"""pytest plugin: adds stridedarray and array-api-strict to einx's test backends.

Load it with ``-p stridedarray_einx`` (this directory on ``PYTHONPATH``) when running einx's
tests (the ``test/`` folder of its source distribution, which the installed package lacks).
einx's ``test/conftest.py`` builds two lists when it is imported, ``setup_backend`` (one entry
per library and einx backend: how to make and read the library's tensors, and the einx
backend to call, e.g. "arrayapi.einsum") and ``setup_adapt``, and parametrizes the tests over
them. When pytest registers that conftest, this appends to both lists what the conftest
appends for Dask, einx's other array-API library: the backends "arrayapi.numpylike",
"arrayapi.einsum", "arrayapi" and the default (None), each as "stridedarray.<backend>" and
"array_api_strict.<backend>". It also names every entry in the test ids by its ``name``
(``pytest_make_parametrize_id``), where pytest would number them, so that
tools/suites/run-peer-suites can tell the backends apart: NumPy's are "numpy.<backend>".

The harness's own reference operations (``classical``, used to compute expected values) are
built by einx from the namespace with ``xp.true_divide`` and ``xp.dot``, NumPy's names: here
they get ``divide`` for ``true_divide``, and a name the namespace lacks fails when called, not
when built. The einx backend under test sees the namespace itself.
"""

from __future__ import annotations

import importlib
import types
from functools import partial

import numpy as np

NAMESPACES = ("stridedarray", "array_api_strict")
EINX_BACKENDS = ("arrayapi.numpylike", "arrayapi.einsum", "arrayapi", None)


class _Reference:
    """The namespace as einx's reference ops read it (see the module docstring)."""

    def __init__(self, xp):
        self._xp = xp

    def __getattr__(self, name):
        if name.startswith("_"):  # einx tests hasattr(xp, "_get_xp") to tell its tracers
            raise AttributeError(name)
        name = "divide" if name == "true_divide" else name
        try:
            return getattr(self._xp, name)
        except AttributeError as e:
            error = e

            def missing(*args, **kwargs):
                raise error

            return missing


def pytest_make_parametrize_id(config, val, argname):
    if argname in ("setup_backend", "setup_adapt"):
        return getattr(val, "name", None)
    return None


def pytest_plugin_registered(plugin, manager):
    conftest = plugin
    if not (
        getattr(conftest, "__name__", "").rpartition(".")[2] == "conftest"
        and hasattr(conftest, "setup_backend")
        and hasattr(conftest, "setup_adapt")
    ):
        return
    import einx
    from einx._src import adapter

    for name in NAMESPACES:
        xp = importlib.import_module(name)
        setup = types.SimpleNamespace(
            full=lambda shape, value=1.0, dtype="float32", xp=xp: xp.full(
                shape, value, dtype=getattr(xp, dtype)
            ),
            to_tensor=xp.asarray,
            to_numpy=np.asarray,
            exceptions=(),
            classical=adapter.classical_from_arrayapi.ops(_Reference(xp)),
            dtypes=types.SimpleNamespace(int="int64", float="float64"),
            version=conftest.to_version("0.0.0"),
        )
        for backend_name in EINX_BACKENDS:
            backend = einx.backend.get(backend_name) if backend_name is not None else None
            conftest.setup_backend.append(
                types.SimpleNamespace(
                    name=f"{name}.{backend_name}", **setup.__dict__, backend=backend, einx=einx
                )
            )
        conftest.setup_adapt.append(
            types.SimpleNamespace(
                name=name,
                **setup.__dict__,
                wrap=partial(conftest.wrap_einx_function, wrap=lambda x: x),
                adapt_numpylike_elementwise=einx.arrayapi.adapt_numpylike_elementwise,
                adapt_numpylike_reduce=einx.arrayapi.adapt_numpylike_reduce,
            )
        )
