"""The array object: `Array` (`array.py`), the Python half of the array type (csrc/arraytype/).

`array.py` is the class statement, which assigns every member from the module that implements
it; beside it, the members it takes from here: conversions (`convert.py`), pickling and
copying (`pickling.py`), DLPack (`dlpack.py`); and the one hand-over of Python objects to the
array type's C code (`handover.py`). This folder is the top of the package's layers: it
imports the parts below, and none of them imports it (docs/dev/architecture.md).
"""
