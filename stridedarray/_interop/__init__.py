"""Other libraries' protocols: NumPy's function and ufunc protocols (`numpy_dispatch.py`),
NumPy's ndarray methods (`ndarray_methods.py`) and Dask's registrations (`dask.py`)
(docs/interop.md)."""
