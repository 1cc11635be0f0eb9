"""The policy file never breaks import: any content is either loaded or warned about and ignored.

The fuzz test re-runs the import-time loader (`_policy._initial`, which reads the file named by
STRIDEDARRAY_POLICY) on random files: JSON of every shape (wrong types, huge and negative
numbers, NaN and infinities, nested objects, unknown keys), raw bytes and truncated JSON. An
independent oracle says whether the file is usable: an object whose keys are policy keys and
whose values are ints (not bools) in the key's range. A usable file is loaded silently; any
other file gives one RuntimeWarning naming it and the defaults. Either way the table converts
to the C struct, which is the step that used to raise OverflowError during import. A few
files are also imported in a child interpreter, the way a user meets them.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stridedarray._matmul import policy as _policy
from stridedarray._matmul.policy import DEFAULT_POLICY, RANGES

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means

KEYS = sorted(DEFAULT_POLICY)

# JSON values of every kind, numbers at the edges included.
scalars = (
    st.none()
    | st.booleans()
    | st.text(max_size=5)
    | st.integers()
    | st.sampled_from([2**63 - 1, 2**63, -1, 0, 1, 2, 10**30, -(2**63)])
    | st.floats(allow_nan=True, allow_infinity=True)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
policy_values = st.integers(0, 2**63 - 1) | st.integers(0, 1) | json_values
policy_objects = st.dictionaries(
    st.sampled_from(KEYS) | st.text(max_size=8), policy_values, max_size=4
)
documents = (
    policy_objects.map(json.dumps)
    | json_values.map(json.dumps)  # not an object, or nested
    | policy_objects.map(lambda d: json.dumps(d)[:-1])  # truncated
    | st.binary(max_size=40).map(lambda b: b.decode("latin-1"))
)


def _usable(text: str) -> dict | None:
    """The oracle: the table a usable file gives, or None."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    for k, v in data.items():
        if k not in DEFAULT_POLICY or type(v) is not int:
            return None
        lo, hi = RANGES[k]
        if not lo <= v <= hi:
            return None
    return {**DEFAULT_POLICY, **data}


def _load_at_import(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[dict, list[str]]:
    monkeypatch.setenv("STRIDEDARRAY_POLICY", str(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = _policy._initial()
    _policy._struct(table, -1)  # what the import does next with the table
    return table, [str(w.message) for w in caught if w.category is RuntimeWarning]


@settings(max_examples=300)
@given(text=documents)
def test_fuzzed_policy_file_never_raises(tmp_path_factory, text: str) -> None:
    path = tmp_path_factory.mktemp("policy") / "policy.json"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    with pytest.MonkeyPatch.context() as mp:
        table, warned = _load_at_import(mp, path)
    assert sorted(table) == KEYS
    want = _usable(text)
    if want is None:
        assert table == DEFAULT_POLICY
        assert len(warned) == 1 and str(path) in warned[0]
    else:
        assert table == want and not warned


@pytest.mark.parametrize("value", [2**63, 2**64, -1, 1.5, math.nan, True, "8", [8], {"a": 8}, None])
def test_bad_value_names_the_key(monkeypatch, tmp_path, value) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"gemm_blas_min": value}))
    table, warned = _load_at_import(monkeypatch, path)
    assert table == DEFAULT_POLICY
    assert len(warned) == 1 and "'gemm_blas_min'" in warned[0]
    assert "non-negative int" in warned[0]


def test_switch_range(monkeypatch, tmp_path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"blas_enabled": 2}))
    table, warned = _load_at_import(monkeypatch, path)
    assert table == DEFAULT_POLICY and "'blas_enabled' must be 0 or 1" in warned[0]
    path.write_text(json.dumps({"blas_enabled": 0, "gemm_blas_min": 2**63 - 1}))
    table, warned = _load_at_import(monkeypatch, path)
    assert not warned and table["blas_enabled"] == 0 and table["gemm_blas_min"] == 2**63 - 1


def _special_files(tmp_path: Path) -> dict[str, Path]:
    """Paths that are not readable policy files, each its own way."""
    (tmp_path / "a_file").write_text("{}")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "big.json").write_text("{" + " " * (1 << 17) + "}")
    (tmp_path / "latin1.json").write_bytes(b'{"gemm_blas_min": "\xff"}')
    (tmp_path / "digits.json").write_text('{"gemm_blas_min": ' + "9" * 5000 + "}")
    os.mkfifo(tmp_path / "fifo")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    return {
        "directory": tmp_path,
        "missing": tmp_path / "missing.json",
        "under_a_file": tmp_path / "a_file" / "policy.json",  # NotADirectoryError
        "dangling_symlink": tmp_path / "dangling",
        "fifo": tmp_path / "fifo",  # opening it would block the import
        "device": Path("/dev/zero"),  # reading it would never end
        "deeply_nested": tmp_path / "deep.json",
        "too_big": tmp_path / "big.json",
        "not_utf8": tmp_path / "latin1.json",
        "too_many_digits": tmp_path / "digits.json",
    }


def test_unreadable_and_special_files_are_ignored(monkeypatch, tmp_path) -> None:
    for name, path in _special_files(tmp_path).items():
        table, warned = _load_at_import(monkeypatch, path)
        assert table == DEFAULT_POLICY, name
        assert len(warned) == 1 and str(path) in warned[0], (name, warned)


def test_no_home_directory(monkeypatch) -> None:
    """Finding the user file cannot fail the import either: with no $HOME and no password
    entry for the user, `~` stays unexpanded, and the import warns and goes on."""
    monkeypatch.delenv("STRIDEDARRAY_POLICY", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    import pwd

    def no_entry(uid: int) -> Any:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    assert os.path.expanduser("~") == "~"  # what Python's own expansion gives then
    with pytest.raises(RuntimeError, match="home directory"):
        _policy.user_policy_path()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _policy._initial() == DEFAULT_POLICY
    assert any("Could not determine home directory" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    "content", ['{"gemm_blas_min": 9223372036854775808}', '{"gemm_pack_min": NaN}', "[" * 50_000]
)
def test_import_with_broken_file(tmp_path, content: str) -> None:
    """`import stridedarray` succeeds, warns and multiplies with the defaults."""
    path = tmp_path / "policy.json"
    path.write_text(content)
    _assert_import_survives(path)


def test_import_with_directory_or_fifo(tmp_path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for path in (tmp_path, tmp_path / "fifo"):
        _assert_import_survives(path)


def _assert_import_survives(path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["STRIDEDARRAY_POLICY"] = str(path)
    code = (
        "import stridedarray as sa; from stridedarray._matmul.policy import current_policy; "
        "a = sa.ones((4, 4)); assert float((a @ a)[0, 0]) == 4.0; "
        "print(current_policy()['gemm_blas_min'])"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(DEFAULT_POLICY["gemm_blas_min"])
    assert "ignoring matmul policy file" in r.stderr and str(path) in r.stderr
