"""cffi build script (out-of-line API mode) for the C core, `stridedarray._core`.

The C core lives in csrc/core/ (docs/dev/architecture.md, "The C core"), and every #include
there is relative to that folder, the one include path set here. The C declarations that
Python sees are the cffi-parsable headers of csrc/core/api/, listed in API_HEADERS (plain
typedefs, prototypes and integer #defines only). Every `csrc/core/*/*.c` file is compiled into
the one extension. Linking against OpenBLAS (the copy bundled from the `scipy-openblas32`
wheel), parallel and incremental compilation and the $ORIGIN run-time path are done by the
build_ext command in setup.py.

During development, `python setup.py build_ext --inplace` rebuilds the extension in place,
recompiling only the C files whose source or headers changed (`pip install -e .` builds
everything, in a temporary directory).

Compiler flags are the project's, not the interpreter's: COMPILE_FLAGS come after the flags
Python was built with (sysconfig CFLAGS: -O3 -g for a pyenv build, other levels elsewhere), and
for GCC and Clang the last -O and -g win, so every build is -O3 without debug information,
whatever Python builds it. LINK_FLAGS strip the symbol table as well.

Environment switch:
    STRIDEDARRAY_SANITIZE=1   build the C core for AddressSanitizer and UndefinedBehaviorSanitizer:
        `-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -O1 -g -UNDEBUG
        -fno-wrapv -fno-var-tracking-assignments -DSA_SANITIZE_BUILD`, linked with the same
        -fsanitize and not stripped. (GCC's `undefined` leaves out float-cast-overflow, the UB of
        a float -> int conversion that does not fit; it is added. SA_SANITIZE_BUILD lets GCC
        choose what to inline in the generic kernels, see kernels/generic_target.h, which cuts
        the build from minutes to about a minute.) These flags come after COMPILE_FLAGS, and for
        GCC the last -O, -g, -D/-U and -f(no-)wrapv win: the build is -O1 -g, the C debug asserts
        (assert, SA_ASSERT_IN_BUFFER) are live, and signed overflow is undefined again so UBSan
        reports it. UBSan recovers (reports and goes on) so that one run lists every report;
        tools/checks/sanitize counts them. Such an extension only loads with the ASan runtime
        preloaded (LD_PRELOAD=$(gcc -print-file-name=libasan.so)); tools/checks/sanitize does all of
        this in a scratch virtual environment.
    STRIDEDARRAY_FUZZ=1       with STRIDEDARRAY_SANITIZE=1 and CC=clang, as tools/checks/fuzz builds
        it and nothing else does: the sanitizer build above plus `-fsanitize=fuzzer-no-link`, so
        that libFuzzer (in atheris) sees the C code's edges and comparisons, and without OpenMP
        (the sources build serially without it; Clang's OpenMP runtime is not needed). It loads
        with atheris's `asan_with_fuzzer.so` preloaded, an ASan+UBSan+libFuzzer runtime of its
        own, instead of GCC's libasan.
"""

import os
from pathlib import Path

import numpy
import scipy_openblas32
from cffi import FFI
from setuptools import Extension

ROOT = Path(__file__).resolve().parent
CSRC = ROOT / "csrc"
CORE = CSRC / "core"  # the include root of the core and of the array type

# Order matters: a header may use types declared by an earlier one.
API_HEADERS = ["api/array.h", "api/alloc.h", "api/matmul.h", "api/fork_guard.h", "api/threads.h"]

SANITIZE = os.environ.get("STRIDEDARRAY_SANITIZE", "") == "1"
SANITIZES = "-fsanitize=address,undefined,float-cast-overflow"
SANITIZE_COMPILE = [
    SANITIZES,
    "-fno-omit-frame-pointer",
    "-O1",
    "-g",
    "-UNDEBUG",
    "-fno-wrapv",
    # Build time: variable tracking on the big kernel file doubles the
    # compile; line tables stay, so reports still name file and line.
    "-fno-var-tracking-assignments",
    "-DSA_SANITIZE_BUILD",
]
SANITIZE_LINK = [SANITIZES, "-fopenmp"]
FUZZ = SANITIZE and os.environ.get("STRIDEDARRAY_FUZZ", "") == "1"
if FUZZ:
    SANITIZE_COMPILE = [
        f"{SANITIZES},fuzzer-no-link",
        *(f for f in SANITIZE_COMPILE[1:] if f != "-fno-var-tracking-assignments"),  # GCC's
    ]
    SANITIZE_LINK = [f"{SANITIZES},fuzzer-no-link"]

# -O3: the generic kernels are written for it (docs/dev/building.md has the -O2/-O3 measurements).
# -g0: no debug information (it was 6 MB of an 8.8 MB extension). No -fwrapv: no C file
# here relies on signed overflow wrapping (the generic integer kernels multiply in unsigned
# types, kernels/generic_real.h's SA_SMUL), and the sanitizer build checks that with
# -fno-wrapv. The interpreter's own flags may still say -fwrapv (or -fno-strict-overflow);
# that changes no result.
# -fvisibility=hidden: only the module's init function is exported (cffi marks it), so the
# core's own C symbols cannot clash with another library's.
# -fopenmp: the generic kernel, the BLAS batches and the packs split large work over threads
# (csrc/core/runtime/threads.c); it links GCC's OpenMP runtime, libgomp, which a wheel carries
# (auditwheel repair copies it in under a name of its own).
OPENMP = [] if FUZZ else ["-fopenmp"]
COMPILE_FLAGS = ["-O3", "-g0", "-DNDEBUG", "-fvisibility=hidden", *OPENMP]
LINK_FLAGS = ["-Wl,--strip-all", *OPENMP]

ffibuilder = FFI()
ffibuilder.cdef(
    "\n".join((CORE / h).read_text() for h in API_HEADERS if (CORE / h).exists())
    + """
    int scipy_openblas_get_num_threads(void);
    void scipy_openblas_set_num_threads(int num_threads);
    char *scipy_openblas_get_corename(void);
    char *scipy_openblas_get_config(void);
    const char *sa_blas_package_version(void);
    void *sa_blas_function_address(void);
    """
)

ffibuilder.set_source(
    "stridedarray._core",
    "\n".join(f'#include "{h}"' for h in API_HEADERS if (CORE / h).exists())
    + '\n#include "cblas.h"\n'
    # For blas_info(): the scipy-openblas32 release the core was built with and bundles, and
    # the address of one BLAS function as bound by the loader (dladdr names its file; cffi's
    # own ffi.addressof would give the address of its wrapper in this module).
    + "static const char *sa_blas_package_version(void) "
    + f'{{ return "{scipy_openblas32.__version__}"; }}\n'
    + "static void *sa_blas_function_address(void) "
    + "{ return (void *)&scipy_openblas_get_config; }\n",
    # Paths relative to the project root: setuptools builds from there, and absolute paths
    # would leak the build machine's layout into the sources cffi generates.
    sources=sorted(str(p.relative_to(ROOT)) for p in CORE.glob("*/*.c")),
    # Headers are listed so that setuptools notices them; which object each one rebuilds is
    # worked out from the compiler's dependency files (setup.py).
    depends=sorted(str(p.relative_to(ROOT)) for p in CORE.glob("*/*.h")),
    include_dirs=[str(CORE.relative_to(ROOT)), scipy_openblas32.get_include_dir()],
    extra_compile_args=COMPILE_FLAGS + (SANITIZE_COMPILE if SANITIZE else []),
    extra_link_args=SANITIZE_LINK if SANITIZE else LINK_FLAGS,
)

# The array type (stridedarray._arraytype, csrc/arraytype/): a CPython extension on NumPy's C
# API, beside the cffi core, with the same compiler flags and sanitizer switch.
arraytype_extension = Extension(
    "stridedarray._arraytype",
    sources=sorted(str(p.relative_to(ROOT)) for p in (CSRC / "arraytype").glob("*.c")),
    depends=sorted(str(p.relative_to(ROOT)) for p in (CSRC / "arraytype").glob("*.h"))
    + ["csrc/core/api/array.h", "csrc/core/api/matmul.h", "csrc/core/base/checked_internal.h"],
    # It includes those core headers by the core's own root-relative names ("api/array.h").
    include_dirs=[str(CORE.relative_to(ROOT)), numpy.get_include()],
    # No OpenMP: the array type runs no threads of its own.
    extra_compile_args=[f for f in COMPILE_FLAGS if f not in OPENMP]
    + (SANITIZE_COMPILE if SANITIZE else []),
    extra_link_args=[f for f in (SANITIZE_LINK if SANITIZE else LINK_FLAGS) if f not in OPENMP],
)
