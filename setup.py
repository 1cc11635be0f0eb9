"""setuptools shim: `cffi_modules` is a setup() keyword, so it cannot live in pyproject.toml."""

from setuptools import setup

setup(cffi_modules=["build_ffi.py:ffibuilder"])
