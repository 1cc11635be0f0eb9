"""Pickles written by an earlier stridedarray still load: arrays (views among them), dtypes,
the device, the namespace information object, functions, Array's methods and an older API
version's functions, each pickled once and committed in tests/pickles/ (protocols 2 and 5).

A pickle names what rebuilds an object by module and name (stridedarray/_pickle.py lists the
names: the public ones and `stridedarray._pickle`'s), so moving code between the package's
private modules must leave every one of these loading to the same object or values. The files
are never rewritten to make this test pass: `python tests/array/test_pickle_compat.py --write`
exists for adding a case, and a changed file is a broken promise to every stored pickle.
"""

from __future__ import annotations

import pickle
import pickletools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridedarray as sa

pytestmark = [pytest.mark.version_sensitive]  # tests/conftest.py says what each means

HERE = Path(__file__).resolve().parents[1] / "pickles"
PROTOCOLS = (2, 5)


def _grid() -> sa.Array:
    return sa.reshape(sa.arange(24, dtype=sa.float64) * 0.5, (4, 6))


def _readonly() -> sa.Array:
    a = np.arange(5, dtype=np.uint16)[::-1]
    a.flags.writeable = False
    return sa.asarray(a)


# name -> (what to pickle, how a loaded object is checked against a fresh one)
def _same_array(got: Any, want: Any) -> None:
    assert isinstance(got, sa.Array) and got.dtype is want.dtype
    assert got.shape == want.shape and got.readonly == want.readonly
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _identical(got: Any, want: Any) -> None:
    assert got is want


def _equal(got: Any, want: Any) -> None:
    assert type(got) is type(want) and got == want


CASES: dict[str, tuple[Callable[[], Any], Callable[[Any, Any], None]]] = {
    "array-float64-2d": (_grid, _same_array),
    "array-reversed-view": (lambda: _grid()[::-1, ::2], _same_array),
    "array-transposed": (lambda: _grid().mT, _same_array),
    "array-broadcast": (lambda: sa.broadcast_to(sa.arange(3, dtype=sa.int32), (4, 3)), _same_array),
    "array-0d-complex": (lambda: sa.asarray(1.5 - 2j, dtype=sa.complex64), _same_array),
    "array-bool-empty": (lambda: sa.zeros((0, 3), dtype=sa.bool), _same_array),
    "array-readonly": (_readonly, _same_array),
    "dtype-float32": (lambda: sa.float32, _identical),
    "dtype-uint8": (lambda: sa.uint8, _identical),
    "device": (lambda: sa.asarray(1.0).device, _identical),
    "namespace-info": (sa.__array_namespace_info__, _identical),
    "finfo-float32": (lambda: sa.finfo(sa.float32), _equal),
    "iinfo-int16": (lambda: sa.iinfo(sa.int16), _equal),
    "function-add": (lambda: sa.add, _identical),
    "function-matmul": (lambda: sa.matmul, _identical),
    "function-concat": (lambda: sa.concat, _identical),
    "function-linalg-inv": (lambda: sa.linalg.inv, _identical),
    "function-fft-rfft": (lambda: sa.fft.rfft, _identical),
    "function-matmul-policy": (lambda: sa.matmul_policy, _identical),
    "method-add": (lambda: sa.Array.__add__, _identical),
    "method-to-device": (lambda: sa.Array.to_device, _identical),
    "method-sum": (lambda: sa.Array.sum, _identical),
    "method-info-dtypes": (lambda: type(sa.__array_namespace_info__()).dtypes, _identical),
    "older-meshgrid": (
        lambda: sa.ones(1).__array_namespace__(api_version="2023.12").meshgrid,
        _identical,
    ),
    "older-namespace-info": (
        lambda: sa.ones(1).__array_namespace__(api_version="2022.12").__array_namespace_info__(),
        _identical,
    ),
}


def _path(name: str, protocol: int) -> Path:
    return HERE / f"{name}.p{protocol}.pickle"


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_stored_pickle_loads(name: str, protocol: int) -> None:
    make, check = CASES[name]
    data = _path(name, protocol).read_bytes()
    check(pickle.loads(data), make())


@pytest.mark.parametrize("name", sorted(CASES))
def test_todays_pickle_names_what_the_stored_one_names(name: str) -> None:
    """Today's pickle refers to the same modules and names as the stored one: a new name
    would load today and break in every process that still has an older stridedarray."""
    for protocol in PROTOCOLS:
        stored = _globals(_path(name, protocol).read_bytes())
        assert _globals(pickle.dumps(CASES[name][0](), protocol=protocol)) == stored


def test_every_name_a_pickle_uses_is_public_or_the_pickle_modules() -> None:
    used = set().union(*(_globals(p.read_bytes()) for p in HERE.glob("*.pickle")))
    # Python's own (protocol 2 spells builtins `__builtin__` and makes bytes with
    # `_codecs.encode`), then ours: public modules and the pickle module.
    python = ("builtins", "__builtin__", "copyreg", "_codecs")
    ours = {module for module, _ in used if module not in python}
    assert ours and all(
        m == "stridedarray._pickle" or not any(p.startswith("_") for p in m.split("."))
        for m in ours
    ), ours


def _globals(data: bytes) -> set[tuple[str, str]]:
    """The (module, name) pairs a pickle looks up."""
    found: set[tuple[str, str]] = set()
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(data):
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8"):
            strings.append(arg)
        elif op.name == "STACK_GLOBAL":
            found.add((strings[-2], strings[-1]))
        elif op.name == "GLOBAL":
            module, _, name = arg.partition(" ")
            found.add((module, name))
    return found


def _write() -> None:  # pragma: no cover - run by hand to add a case
    HERE.mkdir(exist_ok=True)
    for name, (make, _) in CASES.items():
        for protocol in PROTOCOLS:
            path = _path(name, protocol)
            if not path.exists():
                path.write_bytes(pickle.dumps(make(), protocol=protocol))
                print("wrote", path)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:  # pragma: no cover
    _write()
