"""tools/release/check-dist refuses an sdist that holds build output or an untracked file, or is too
large, and passes one that holds exactly the tracked files and the build's metadata.

The tarballs are crafted here (empty files under the tracked names), so no build runs."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import stridedarray as sa

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

ROOT = Path(__file__).resolve().parents[2]
CHECK_DIST = ROOT / "tools" / "release" / "check-dist"


def _tracked() -> list[str]:
    if not CHECK_DIST.is_file() or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (tools/release/check-dist compares with git ls-files)")
    return subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()


def _sdist(path: Path, extra: dict[str, bytes]) -> Path:
    """An sdist of the tracked files (empty), the build's metadata and `extra`."""
    prefix = f"stridedarray-{sa.__version__}/"
    files = {f: b"" for f in _tracked() if not f.startswith((".ci/", ".gitignore"))}
    files["PKG-INFO"] = (
        f"Metadata-Version: 2.4\nName: stridedarray\nVersion: {sa.__version__}\n"
    ).encode()
    files["setup.cfg"] = b""
    files["stridedarray.egg-info/SOURCES.txt"] = b""
    files.update(extra)
    with tarfile.open(path, "w:gz") as tar:
        root = tarfile.TarInfo(prefix.rstrip("/"))
        root.type = tarfile.DIRTYPE
        tar.addfile(root)
        for name, data in files.items():
            info = tarfile.TarInfo(prefix + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _check(sdist: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK_DIST), "--sdist", str(sdist)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_sdist_of_the_tracked_files_passes(tmp_path: Path) -> None:
    proc = _check(_sdist(tmp_path / "ok.tar.gz", {}))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failure(s)" in proc.stdout


@pytest.mark.parametrize(
    "name",
    [
        "docs/_build/html/index.html",  # the docs site, built as the README says
        "docs/api/generated/stridedarray.add.rst",  # autosummary's pages
        "bench-out/results.json",  # a benchmark run's outputs
        "stridedarray/_core.abi3.so",  # the extension, built in place
        "stridedarray/_core.c",  # cffi's generated C
        "stridedarray/_blas/libscipy_openblas_stridedarray.so",  # the bundled BLAS
        "build/temp.linux-x86_64-cpython-311/csrc/matmul.o",
    ],
)
def test_build_output_in_the_sdist_fails(tmp_path: Path, name: str) -> None:
    proc = _check(_sdist(tmp_path / "built.tar.gz", {name: b"x"}))
    assert proc.returncode == 1, proc.stdout
    assert "FAIL holds no build output" in proc.stdout and name in proc.stdout


def test_an_sdist_over_the_limit_fails(tmp_path: Path) -> None:
    # Random bytes do not compress: a tracked file's name with 1.3 MB of them.
    data = os.urandom(1_300_000)
    proc = _check(_sdist(tmp_path / "big.tar.gz", {"README.md": data}))
    assert proc.returncode == 1, proc.stdout
    assert re.search(r"FAIL weighs 1\.3\d MB \(limit 1\.2 MB\)", proc.stdout), proc.stdout
