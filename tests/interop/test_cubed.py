"""Cubed with stridedarray as its backend (docs/scale-out.md, "Cubed"): the reused reversed
matrix across a chunked batch, a reduction and an element-wise chain give NumPy's values, and
every chunk Cubed hands back is one of our arrays.

Cubed reads its backend from CUBED_BACKEND_ARRAY_API_MODULE when it is first imported, so each
case runs in a fresh interpreter with the variable set (an earlier import in this process
would have fixed it to NumPy)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("cubed") is None, reason="Cubed is not installed (Python >= 3.12)"
)

SCRIPT = textwrap.dedent(
    """
    import sys, tempfile
    import numpy as np
    import cubed, cubed.array_api as cxp
    import stridedarray as sa
    from cubed.backend_array_api import namespace

    assert namespace is sa, namespace
    executor = sys.argv[1]
    spec = cubed.Spec(work_dir=tempfile.mkdtemp(), allowed_mem="500MB", executor_name=executor)
    rng = np.random.default_rng(7)
    S, B = 24, 12
    m = rng.standard_normal((1, S, S))
    batch = rng.standard_normal((B, S, S))

    # (1, S, S)[..., ::-1] @ (B, S, S): Cubed slices take no negative step, flip is the same.
    shared = cxp.flip(cubed.from_array(m, chunks=(1, S, S), spec=spec), axis=-1)
    b = cubed.from_array(batch, chunks=(4, S, S), spec=spec)
    prod = (shared @ b).compute()
    assert type(prod) is sa.Array, type(prod)
    np.testing.assert_allclose(np.asarray(prod), m[..., ::-1] @ batch, rtol=1e-12, atol=1e-12)

    total = cxp.sum(b, axis=(1, 2)).compute()
    assert type(total) is sa.Array and total.dtype is sa.float64
    np.testing.assert_allclose(np.asarray(total), batch.sum(axis=(1, 2)), rtol=1e-12)

    chain = (cxp.exp(-cxp.abs(b)) * 2.0 + cxp.sqrt(cxp.abs(b)) - 1.0).compute()
    assert type(chain) is sa.Array
    expected = np.exp(-np.abs(batch)) * 2.0 + np.sqrt(np.abs(batch)) - 1.0
    np.testing.assert_allclose(np.asarray(chain), expected, rtol=1e-14)

    # Cubed's dtypes are NumPy's: a cast through Cubed gives our float32.
    f32 = cxp.astype(b, cxp.float32).compute()
    assert f32.dtype is sa.float32, f32.dtype
    np.testing.assert_array_equal(np.asarray(f32), batch.astype(np.float32))
    print("ok")
    """
)


def run(executor: str) -> None:
    env = dict(os.environ, CUBED_BACKEND_ARRAY_API_MODULE="stridedarray")
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, executor],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout + proc.stderr


def test_threads_executor_gives_numpys_values():
    run("threads")


def test_processes_executor_gives_numpys_values():
    run("processes")
