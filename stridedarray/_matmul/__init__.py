"""The matrix product's Python side and the cffi core (`stridedarray._core`, csrc/core/).

`product.py`: `matmul`, `@` and `matmul_explain`; `policy.py`: the selector's thresholds and
`matmul_policy`; `threads.py`: the thread-count setting; `ffi.py`: loading the cffi core with
its bundled OpenBLAS; `diagnostics.py`: the core's allocation counters (docs/matmul.md).
"""
