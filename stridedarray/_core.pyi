# The cffi extension built by build_ffi.py from csrc/core/api/array.h, api/alloc.h and api/matmul.h.
# cffi makes `ffi` and `lib` at run time from those C declarations, so a type checker cannot
# see their members: both are Any here, and the C headers are the reference for what they hold.
from typing import Any

ffi: Any
lib: Any
