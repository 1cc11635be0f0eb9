"""Build level (issue 2 items 2-3): the extension imports and reports the BLAS it linked, the
linked library is found through an $ORIGIN-relative rpath, and `python -m stridedarray` runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import stridedarray as sa
from stridedarray import _core

ROOT = Path(__file__).resolve().parent.parent


def test_extension_reports_linked_blas():
    info = sa.blas_info()
    assert set(info) >= {"library", "version", "config", "corename", "threads"}
    assert "scipy_openblas" in info["library"]
    assert info["config"].startswith("OpenBLAS") and info["corename"]
    assert isinstance(info["threads"], int) and info["threads"] >= 1
    # The symbols really come from the wheel's prefixed OpenBLAS.
    assert _core.lib.scipy_openblas_get_num_threads() == info["threads"]


def _dynamic_section(so: str) -> str:
    return subprocess.run(["readelf", "-d", so], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf (binutils) not installed")
def test_extension_links_the_wheel_blas_through_origin_rpath():
    dyn = _dynamic_section(_core.__file__)
    assert re.search(r"NEEDED.*\[libscipy_openblas", dyn)
    m = re.search(r"R(UN)?PATH.*\[(.*)\]", dyn)
    assert m, dyn
    entries = m.group(2).split(":")
    assert "$ORIGIN/../scipy_openblas32/lib" in entries
    # No path into a (deleted) pip build environment or this checkout. The interpreter's own
    # lib directory may appear: CPython's sysconfig LDSHARED adds it (pyenv builds), not us.
    for e in entries:
        assert "pip-build-env" not in e and str(ROOT) not in e, e


def test_python_dash_m_stridedarray():
    if not hasattr(sa, "matmul"):
        pytest.skip("python -m stridedarray multiplies a reversed view by a batch: it needs "
                    "stridedarray.matmul (issue 3, helper M), which does not exist yet")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    r = subprocess.run([sys.executable, "-m", "stridedarray"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert f"stridedarray {sa.__version__}" in out
    assert "BLAS:" in out and "core type" in out and "thread" in out
    assert "matches NumPy" in out


@pytest.mark.slow
def test_regular_install_finds_blas_without_importing_the_wheel(tmp_path):
    """`pip install .` into a throwaway venv; load _core without importing scipy_openblas32."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(ROOT)], check=True,
                   cwd=tmp_path, timeout=900)
    code = (
        "import glob, importlib.util, sys, sysconfig\n"
        "so = glob.glob(sysconfig.get_paths()['purelib'] + '/stridedarray/_core*.so')[0]\n"
        "spec = importlib.util.spec_from_file_location('stridedarray._core', so)\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "assert 'scipy_openblas32' not in sys.modules\n"
        "print(m.ffi.string(m.lib.scipy_openblas_get_corename()).decode())\n"
    )
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip(), r.stderr
