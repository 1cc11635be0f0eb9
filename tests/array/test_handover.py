"""The hand-over (stridedarray/_array/handover.py, csrc/arraytype/arraytype.c `_connect`): what the
array type needs from Python, given to C once per process (docs/dev/internals.md, "The
hand-over from Python to C"). A second call is refused before anything is read; a table is
checked whole before anything is installed, so a refused one changes nothing; every value is
held by C's own reference while the table's Python code runs.

The second-call cases run in a child process: on a build without these guarantees they
corrupt or crash the process that makes them. The first-call cases need a process whose
package import has not made the hand-over yet: the child loads the package with
`_handover.connect` standing for the case's own first call (`_FIRST`).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import stridedarray as sa

pytestmark = [
    pytest.mark.c_core,
    pytest.mark.version_sensitive,
]  # tests/conftest.py says what each means

# The package imported as usual (the hand-over made), then the case.
_AFTER = """
import gc, sys
import numpy as np
import stridedarray as sa
from stridedarray._base import dtypes as _dtypes
from stridedarray._arraytype import _connect
from stridedarray._array.handover import connect, table
"""

# The package imported with the case's `first()` as the hand-over its __init__ makes.
_FIRST = """
import gc, importlib.util, sys
import numpy as np
spec = importlib.util.find_spec("stridedarray")
pkg = importlib.util.module_from_spec(spec)
sys.modules["stridedarray"] = pkg
from stridedarray._array import array as _array
from stridedarray._array import handover as _handover
from stridedarray._base import construct as _construct
from stridedarray._base import dtypes as _dtypes
from stridedarray._arraytype import _connect
from stridedarray._array.handover import table
real_connect = _handover.connect
"""
_IMPORT = """
_handover.connect = lambda: first()
spec.loader.exec_module(pkg)
import stridedarray as sa
"""


def _child(prelude: str, case: str) -> None:
    code = prelude + textwrap.dedent(case) + "\nprint('ok')\n"
    proc = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), (
        f"child exited {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    )


def _first(first: str, then: str) -> None:
    _child(_FIRST, textwrap.dedent(first) + _IMPORT + textwrap.dedent(then))


def test_a_second_hand_over_is_refused_and_changes_nothing():
    from stridedarray._array.handover import connect, table
    from stridedarray._arraytype import _connect

    x = sa.asarray([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a second one is refused"):
        connect()
    with pytest.raises(RuntimeError, match="a second one is refused"):
        _connect(None)  # refused before the table is looked at
    t = table()
    with pytest.raises(RuntimeError, match="a second one is refused"):
        _connect(t)
    assert type(x + 1.0) is sa.Array and (x + 1.0).tolist() == [2.0, 3.0]
    assert (x @ x).tolist() == 5.0 and x._c.ndim == 1


def test_a_second_hand_over_never_runs_the_tables_code():
    # The finding: the dtypes entry's __iter__ cleared the table, which freed the values C had
    # borrowed from it (a use after free). Now nothing of a second table is read at all.
    _child(
        _AFTER,
        """
        ran = []
        t = table()
        class Clearing:
            def __iter__(self):
                ran.append(1)
                t.clear()
                gc.collect()
                return iter(_dtypes.DTYPES)
            def __len__(self):
                return 13
        t["dtypes"] = Clearing()
        t["wrap"] = lambda r: 1 / 0  # held by the table alone
        t["getitem"] = lambda x, key: 1 / 0
        try:
            _connect(t)
        except RuntimeError:
            pass
        else:
            raise AssertionError("a second hand-over was taken")
        assert ran == []
        del t
        gc.collect()
        x = sa.asarray(np.arange(6.0).reshape(2, 3))
        # an array key: the getitem fallback
        assert np.asarray(x[sa.asarray([0, 1])]).tolist() == [[0, 1, 2], [3, 4, 5]]
        assert np.asarray(x.mT * 2.0).tolist() == [[0, 6], [2, 8], [4, 10]]
        """,
    )


def test_a_second_hand_over_cannot_register_another_array_class():
    # The finding: a class with a __dict__ got free-list objects allocated for Array.
    _child(
        _AFTER,
        """
        class Sub(sa.Array):
            pass
        held = [sa.zeros(3) for _ in range(40)]
        del held  # fills the free list with Array objects
        try:
            connect(array_class=Sub)
        except RuntimeError:
            pass
        else:
            raise AssertionError("a second hand-over was taken")
        made = [sa.zeros(3) for _ in range(40)]
        assert all(type(a) is sa.Array for a in made)
        for a in made:
            a.__dict__ if hasattr(a, "__dict__") else None
        """,
    )


def test_a_second_hand_over_cannot_change_the_item_size_of_existing_arrays():
    _child(
        _AFTER,
        """
        x = sa.asarray(np.arange(4.0))
        swapped = list(_dtypes.DTYPES)
        swapped[10], swapped[12] = swapped[12], swapped[10]
        try:
            connect(dtypes=swapped)
        except RuntimeError:
            pass
        else:
            raise AssertionError("a second hand-over was taken")
        assert x.dtype == sa.float64 and np.asarray(x).tolist() == [0.0, 1.0, 2.0, 3.0]
        assert np.asarray(x + 1.0).tolist() == [1.0, 2.0, 3.0, 4.0]
        """,
    )


def test_a_table_refused_at_its_matmul_entry_leaves_the_indexing_fallback_alone():
    _child(
        _AFTER,
        """
        reached = []
        def recorder(x, key):
            reached.append(key)
            raise AssertionError("the refused table's getitem was installed")
        try:
            _connect({**table(), "getitem": recorder, "matmul": (1, 2, 3)})
        except (RuntimeError, TypeError):
            pass
        else:
            raise AssertionError("the table was taken")
        x = sa.asarray(np.arange(4.0))
        assert np.asarray(x[sa.asarray([0, 2])]).tolist() == [0.0, 2.0]
        assert reached == []
        """,
    )


def test_the_first_hand_over_holds_its_values_while_the_tables_code_runs():
    # The dtypes entry's iteration clears the table and collects: C's own references keep
    # every value alive, and the hand-over is made from them.
    _first(
        """
        def first():
            t = table()
            class Clearing:
                def __iter__(self):
                    t.clear()
                    gc.collect()
                    return iter(_dtypes.DTYPES)
            t["dtypes"] = Clearing()
            t["wrap"] = lambda r: _construct._wrap_py(r)  # held by the table alone
            t["getitem"] = lambda x, key: _handover._getitem.getitem(x, key)
            _connect(t)
            del t
            gc.collect()
        """,
        """
        x = sa.asarray(np.arange(6.0).reshape(2, 3))
        assert np.asarray(x[sa.asarray([0, 1])]).tolist() == [[0, 1, 2], [3, 4, 5]]
        assert np.asarray(x.mT * 2.0).tolist() == [[0, 6], [2, 8], [4, 10]]
        assert (x @ x.mT).tolist() == [[5.0, 14.0], [14.0, 50.0]]
        """,
    )


def test_a_refused_first_table_changes_nothing_and_the_hand_over_can_still_be_made():
    # Each form of bad table is refused with its reason; the real one is taken after them.
    _first(
        """
        import pytest
        from stridedarray._api import getitem as _getitem

        def refused(t, exc, match):
            with pytest.raises(exc, match=match):
                _connect(t)

        def first():
            t = table()
            without_core = {k: v for k, v in t.items() if k != "core"}
            refused({**without_core, "extra": None}, TypeError, "no entry core")
            refused({**t, "extra": None}, TypeError, "table must be a dict of the 7 entries")
            refused(list(t.items()), TypeError, "table must be a dict")
            refused({**t, "matmul": None, "array_class": int}, TypeError, "matmul a 3-tuple")
            refused({**t, "array_class": int}, TypeError, "must derive from ArrayBase")
            refused({**t, "wrap": 3}, TypeError, "must be callable")
            refused({**t, "core": np}, TypeError, "core must be the module")
            class Key(str):  # its __eq__ could run inside the lookups
                __hash__ = str.__hash__
                def __eq__(self, other):
                    t.clear()
                    return str.__eq__(self, other)
            odd = {k: v for k, v in t.items() if k != "core"}
            odd[Key("core")] = t["core"]
            refused(odd, TypeError, "keys must be str")
            swapped = list(_dtypes.DTYPES)
            swapped[10], swapped[12] = swapped[12], swapped[10]
            refused({**t, "dtypes": swapped}, ValueError, r"dtypes\\[10\\] must be NumPy's float64")
            refused({**t, "dtypes": _dtypes.DTYPES[:12]}, ValueError, "expected 13 dtypes")
            twice = list(_dtypes.DTYPES)
            twice[4] = twice[3]
            refused({**t, "dtypes": twice}, ValueError, r"dtypes\\[4\\] is dtypes\\[3\\]")
            # refused at its matmul entry, after every other entry was read
            reached = []
            refused({**t, "getitem": lambda x, k: reached.append(k), "matmul": (1, 2, 3)},
                    TypeError, "matmul must be")
            real_connect()
            assert reached == []
        """,
        """
        x = sa.asarray(np.arange(4.0))
        assert np.asarray(x[sa.asarray([0, 2])]).tolist() == [0.0, 2.0]
        assert (x @ x).tolist() == 14.0 and x._c.ndim == 1
        """,
    )


def test_a_hand_over_cannot_be_made_from_inside_the_one_under_way():
    _first(
        """
        inner = []
        def first():
            t = table()
            class Reentering:
                def __iter__(self):
                    try:
                        _connect(table())
                    except RuntimeError as e:
                        inner.append(str(e))
                    return iter(_dtypes.DTYPES)
            _connect({**t, "dtypes": Reentering()})
        """,
        """
        assert len(inner) == 1 and "under way" in inner[0], inner
        assert (sa.ones(3) @ sa.ones(3)).tolist() == 3.0
        """,
    )


@pytest.mark.parametrize("slots", [True, False], ids=["slots", "dict"])
def test_a_registered_subclass_gets_objects_made_for_it(slots):
    # A class with an instance __dict__ lays its objects out otherwise (a pre-header on 3.11+):
    # the free list never serves it (freelist.c). With __slots__ = () it does, and a __del__
    # given to the class later runs for every array it frees.
    _first(
        f"""
        class Sub(_array.Array):
            {"__slots__ = ()" if slots else "pass"}
        def first():
            real_connect(array_class=Sub)
        """,
        """
        calls = []
        for _ in range(20):
            held = [sa.zeros(3) + 1.0 for _ in range(20)]
            assert all(type(a) is Sub for a in held)
            if hasattr(held[0], "__dict__"):
                for a in held:
                    a.note = [1] * 8
            del held
        Sub.__del__ = lambda self: calls.append(1)
        counts = []
        for _ in range(3):
            held = [sa.zeros(3) for _ in range(5)]
            del held
            counts.append(len(calls))
        assert counts == [5, 10, 15], counts
        """,
    )
