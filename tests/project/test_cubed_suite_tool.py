"""tools/suites/run-cubed-suite: the parts that need no Cubed (reading pytest's JUnit XML into node
ids and outcomes, the classes of failures, the table of a run). The suite itself is run by
hand with a Cubed source tree."""

import pytest
from tool_scripts import load_tool

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="cubed.tests.test_core" name="test_a[threads]" time="0.1"/>
<testcase classname="cubed.tests.array.test_overlap" name="test_b" time="0.1">
  <failure message="TypeError: full_like() got an unexpected keyword argument 'shape'">tb</failure>
</testcase>
<testcase classname="cubed.tests.test_core.TestX" name="test_c" time="0.1">
  <skipped message="needs lithops">skip</skipped>
</testcase>
<testcase classname="cubed.tests.test_array_api" name="test_d[processes]" time="0.1">
  <error message="TypeError: cannot pickle 'stridedarray._arraytype.FastOp' object">x</error>
</testcase>
</testsuite></testsuites>
"""


@pytest.fixture(scope="module")
def tool():
    return load_tool("suites/run-cubed-suite")


def test_read_junit_gives_node_ids_and_outcomes(tool, tmp_path):
    (tmp_path / "j.xml").write_text(JUNIT)
    rows = tool.read_junit(tmp_path / "j.xml")
    assert [(o, n) for o, n, _ in rows] == [
        ("passed", "cubed/tests/test_core.py::test_a[threads]"),
        ("failed", "cubed/tests/array/test_overlap.py::test_b"),
        ("skipped", "cubed/tests/test_core.py::TestX::test_c"),
        ("error", "cubed/tests/test_array_api.py::test_d[processes]"),
    ]
    assert rows[1][2] == "TypeError: full_like() got an unexpected keyword argument 'shape'"


def test_classify(tool):
    assert tool.classify("TypeError: cannot pickle 'stridedarray._arraytype.FastOp' object") == (
        "pickling of our functions (processes executor)"
    )
    assert tool.classify("AttributeError: module 'stridedarray' has no attribute 'nansum'") == (
        "beyond the standard: nan* functions"
    )
    assert tool.classify("TypeError: mean() got an unexpected keyword argument 'dtype'") == (
        "beyond the standard: mean(dtype=)"
    )
    assert tool.classify("ValueError: something new") == "other"


def test_report_counts_only_failures_numpy_does_not_share(tool, tmp_path, capsys):
    (tmp_path / "numpy").mkdir()
    (tmp_path / "stridedarray").mkdir()
    (tmp_path / "stridedarray" / "junit.xml").write_text(JUNIT)
    # NumPy fails test_b too: shared, so not counted; test_d passes there: unshared.
    (tmp_path / "numpy" / "junit.xml").write_text(
        JUNIT.replace('<error message="TypeError: cannot pickle', '<skipped message="x').replace(
            "</error>", "</skipped>"
        )
    )
    assert tool.report(tmp_path, ["numpy", "stridedarray"]) == 1
    unshared = (tmp_path / "unshared.txt").read_text().splitlines()
    assert len(unshared) == 1 and "test_d[processes]" in unshared[0]
    out = capsys.readouterr().out
    assert "stridedarray failures not shared with numpy: 1" in out
    assert (tmp_path / "failed-numpy.txt").read_text() == (
        "cubed/tests/array/test_overlap.py::test_b\n"
    )
