"""Build level: the extension imports and reports the BLAS it linked, that library is the copy
bundled in the package (found through an $ORIGIN-relative run path, under a SONAME of its own),
the binary carries no build-machine path, no debug information and exports only its init
function, and `python -m stridedarray` runs."""

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

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

ROOT = Path(__file__).resolve().parents[2]


BUNDLED = "libscipy_openblas_stridedarray.so"


def test_extension_reports_linked_blas():
    info = sa.blas_info()
    assert set(info) >= {"library", "version", "config", "corename", "threads"}
    # The loader bound the core's BLAS symbols to the copy bundled beside the extension.
    assert (
        Path(info["library"]).resolve()
        == (Path(_core.__file__).parent / "_blas" / BUNDLED).resolve()
    )
    assert re.fullmatch(r"0\.3\.\d+(\.\d+)*", info["version"]), info["version"]
    assert info["config"].startswith("OpenBLAS") and info["corename"]
    assert isinstance(info["threads"], int) and info["threads"] >= 1
    assert _core.lib.scipy_openblas_get_num_threads() == info["threads"]


def _readelf(*args: str) -> str:
    return subprocess.run(["readelf", *args], capture_output=True, text=True, check=True).stdout


needs_readelf = pytest.mark.skipif(
    shutil.which("readelf") is None, reason="readelf (binutils) not installed"
)


@needs_readelf
def test_extension_links_the_bundled_blas_through_origin_runpath():
    dyn = _readelf("-d", _core.__file__)
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", dyn)
    assert BUNDLED in needed and not any(n == "libscipy_openblas.so" for n in needed), needed
    # The only search path is the package's own; none from the interpreter's LDSHARED (a
    # pyenv build adds its lib directory), the pip build environment or this checkout.
    paths = re.findall(r"\((?:RPATH|RUNPATH)\).*\[(.*)\]", dyn)
    allowed = [["$ORIGIN/_blas"]]
    # A wheel repaired by auditwheel also searches stridedarray.libs/ beside the package,
    # where auditwheel grafted the OpenMP runtime (libgomp); only then.
    libs = Path(_core.__file__).resolve().parent.parent / "stridedarray.libs"
    if any(libs.glob("libgomp*")):
        allowed.append(["$ORIGIN/_blas:$ORIGIN/../stridedarray.libs"])
    assert paths in allowed, paths
    lib_dyn = _readelf("-d", str(Path(_core.__file__).parent / "_blas" / BUNDLED))
    assert re.search(r"\(SONAME\).*\[" + re.escape(BUNDLED) + r"\]", lib_dyn), lib_dyn


@needs_readelf
def test_extension_has_no_debug_info_and_exports_only_its_init():
    dynsyms = _readelf("--dyn-syms", "-W", _core.__file__)
    if "__asan_" in dynsyms:
        pytest.skip("a sanitizer build (STRIDEDARRAY_SANITIZE=1) keeps debug information")
    sections = _readelf("-S", "-W", _core.__file__)
    assert ".debug_" not in sections and ".symtab" not in sections
    defined = [
        line.split()[-1]
        for line in dynsyms.splitlines()
        if re.search(r"\b(FUNC|OBJECT)\b", line) and " UND " not in line
    ]
    assert defined == ["PyInit__core"], defined


def test_extension_holds_no_build_machine_path():
    data = Path(_core.__file__).read_bytes()
    for marker in (str(ROOT), "pip-build-env", "/root/", "/home/", "/tmp/"):
        assert marker.encode() not in data, marker


def test_python_dash_m_stridedarray():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    r = subprocess.run(
        [sys.executable, "-m", "stridedarray"], capture_output=True, text=True, env=env, timeout=120
    )
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert f"stridedarray {sa.__version__}" in out
    assert "BLAS:" in out and "core type" in out and "thread" in out
    assert "matches NumPy" in out


@pytest.mark.slow
def test_regular_install_runs_without_scipy_openblas32(tmp_path):
    """`pip install .` into a throwaway venv; the core loads, and scipy-openblas32 is not there."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", str(ROOT)], check=True, cwd=tmp_path, timeout=900
    )
    code = (
        "import importlib.util, sys\n"
        "import stridedarray as sa\n"
        "assert importlib.util.find_spec('scipy_openblas32') is None\n"
        "print(sa.blas_info()['corename'])\n"
    )
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip(), r.stderr
