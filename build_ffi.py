"""cffi build script (out-of-line API mode) for the C core, `stridedarray._core`.

The C declarations that Python sees are the cffi-parsable headers listed in API_HEADERS
(plain typedefs, prototypes and integer #defines only). Every `csrc/*.c` file is compiled
into the one extension, linked against the OpenBLAS shipped in the `scipy-openblas32` wheel.

During development, `python setup.py build_ext --inplace` rebuilds the extension in place
(`pip install -e .` does the same through pip).

Environment switch:
    STRIDEDARRAY_SANITIZE=1   build the C core for AddressSanitizer and UndefinedBehaviorSanitizer:
        `-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -O1 -g -UNDEBUG
        -fno-wrapv -fno-var-tracking-assignments -DSA_SANITIZE_BUILD`, linked with the same
        -fsanitize. (GCC's `undefined` leaves out float-cast-overflow, the UB of a float -> int
        conversion that does not fit; it is added. SA_SANITIZE_BUILD lets GCC choose what to
        inline in the generic kernels, see generic_target.h, which cuts the build from minutes
        to about a minute.) These flags come after Python's own CFLAGS
        (`-DNDEBUG -O3 -fwrapv`), and for GCC the last -O, -D/-U and -f(no-)wrapv win: the
        build is -O1, the C debug asserts (assert, SA_ASSERT_IN_BUFFER) are live, and signed
        overflow is undefined again so UBSan reports it. UBSan recovers (reports and goes on)
        so that one run lists every report; tools/sanitize counts them. Such an extension only
        loads with the ASan runtime preloaded (LD_PRELOAD=$(gcc -print-file-name=libasan.so));
        tools/sanitize does all of this in a scratch virtual environment.
"""

import os
from pathlib import Path

import scipy_openblas32
from cffi import FFI

ROOT = Path(__file__).resolve().parent
CSRC = ROOT / "csrc"

# Order matters: a header may use types declared by an earlier one.
API_HEADERS = ["sa_array.h", "sa_alloc.h", "sa_matmul.h", "sa_fork_guard_api.h"]

SANITIZE = os.environ.get("STRIDEDARRAY_SANITIZE", "") == "1"
SANITIZES = "-fsanitize=address,undefined,float-cast-overflow"
SANITIZE_COMPILE = [SANITIZES, "-fno-omit-frame-pointer", "-O1", "-g", "-UNDEBUG", "-fno-wrapv",
                    # Build time: variable tracking on the big kernel file doubles the
                    # compile; line tables stay, so reports still name file and line.
                    "-fno-var-tracking-assignments", "-DSA_SANITIZE_BUILD"]
SANITIZE_LINK = [SANITIZES]

ffibuilder = FFI()
ffibuilder.cdef(
    "\n".join((CSRC / h).read_text() for h in API_HEADERS if (CSRC / h).exists())
    + """
    int scipy_openblas_get_num_threads(void);
    void scipy_openblas_set_num_threads(int num_threads);
    char *scipy_openblas_get_corename(void);
    char *scipy_openblas_get_config(void);
    """
)

ffibuilder.set_source(
    "stridedarray._core",
    "\n".join(f'#include "{h}"' for h in API_HEADERS if (CSRC / h).exists())
    + '\n#include "cblas.h"\n',
    # Paths relative to the project root: setuptools builds from there, and absolute paths
    # would leak the build machine's layout into the sources cffi generates.
    sources=sorted(str(p.relative_to(ROOT)) for p in CSRC.glob("*.c")),
    # The kernels are templates in headers: a header change must rebuild the extension.
    depends=sorted(str(p.relative_to(ROOT)) for p in CSRC.glob("*.h")),
    include_dirs=[str(CSRC.relative_to(ROOT)), scipy_openblas32.get_include_dir()],
    library_dirs=[scipy_openblas32.get_lib_dir()],
    libraries=[scipy_openblas32.get_library()],
    # A regular install puts the wheel's library beside us in site-packages; an editable
    # install does not, and relies on `import scipy_openblas32` (RTLD_GLOBAL) in _ffi.py.
    extra_link_args=["-Wl,-rpath,$ORIGIN/../scipy_openblas32/lib"]
    + (SANITIZE_LINK if SANITIZE else []),
    extra_compile_args=SANITIZE_COMPILE if SANITIZE else [],
)
