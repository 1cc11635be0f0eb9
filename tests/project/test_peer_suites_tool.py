"""tools/suites/run-peer-suites: the parts that need no peer suite (which backend a test id belongs
to, how a stridedarray test finds its array-api-strict twin, the array-api-extra patch).
The suites themselves are run by hand; docs/interop.md gives the counts."""

import pytest
from tool_scripts import load_tool

pytestmark = [pytest.mark.install]  # tests/conftest.py says what each means


@pytest.fixture(scope="module")
def tool():
    return load_tool("suites/run-peer-suites")


def test_backend_of(tool):
    sk = tool.SUITES["sklearn"]
    ex = tool.SUITES["extra"]
    assert tool.backend_of("m.py::test_a[None-stridedarray-None-float64]", sk) == "stridedarray"
    assert (
        tool.backend_of("m.py::test_a[array_api_strict-device1-float32]", sk) == "array_api_strict"
    )
    assert (
        tool.backend_of(
            "t.py::test_estimators[Ridge()-check_array_api_input(array_namespace=stridedarray,"
            "device_name=None,dtype_name=float32)]",
            sk,
        )
        == "stridedarray"
    )
    # array_api_strictest is its own backend, not array_api_strict
    assert tool.backend_of("t.py::test_x[array_api_strictest-triu]", ex) == "array_api_strictest"
    assert tool.backend_of("t.py::test_x[array_api_strict-triu]", ex) == "array_api_strict"
    # a name outside the parameters, or no tracked backend, or two of them: None
    assert tool.backend_of("t.py::test_array_api_strict_only", sk) is None
    assert tool.backend_of("t.py::test_x[numpy-None-None]", sk) is None
    assert tool.backend_of("t.py::test_x[stridedarray to array_api_strict]", sk) is None


def test_twin_key(tool):
    pairs = [
        (
            "m.py::test_a[w0-1-stridedarray-None-float64]",
            "m.py::test_a[w0-1-array_api_strict-CPU_DEVICE-float64]",
        ),
        (
            "t.py::test_estimators[Ridge()-check_array_api_input(array_namespace=stridedarray,"
            "device_name=None,dtype_name=float32)]",
            "t.py::test_estimators[Ridge()-check_array_api_input(array_namespace=array_api_strict,"
            "device_name=device1,dtype_name=float32)]",
        ),
        (
            "t.py::test_at[stridedarray-max-True-None]",
            "t.py::test_at[array_api_strict-max-True-None]",
        ),
    ]
    for sa_id, strict_id in pairs:
        assert tool.twin_key(sa_id, "stridedarray") == tool.twin_key(strict_id, "array_api_strict")
    # different dtypes are different tests
    assert tool.twin_key("m.py::t[stridedarray-None-float64]", "stridedarray") != tool.twin_key(
        "m.py::t[array_api_strict-device1-float32]", "array_api_strict"
    )


def test_prepare_extra(tool, tmp_path):
    src = tmp_path / "extra"
    lib = src / "src/array_api_extra/_lib"
    lib.mkdir(parents=True)
    (src / "tests/main").mkdir(parents=True)
    (src / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    enum = (
        'class Backend(Enum):\n    NUMPY = "numpy"\n' + tool.BACKEND_ANCHOR + '    CUPY = "cupy"\n'
    )
    (lib / "_backends.py").write_text(enum)
    tree = tool.prepare_extra(src, tmp_path / "scratch")
    patched = (tree / "src/array_api_extra/_lib/_backends.py").read_text()
    assert patched == enum.replace(tool.BACKEND_ANCHOR, tool.BACKEND_ANCHOR + tool.BACKEND_LINE)
    assert (lib / "_backends.py").read_text() == enum  # the original is untouched
    (lib / "_backends.py").write_text("class Backend(Enum):\n    NUMPY = 'numpy'\n")
    with pytest.raises(SystemExit, match="has no line"):
        tool.prepare_extra(src, tmp_path / "scratch")


def test_backends_and_twins_of_the_numpy_referenced_suites(tool):
    assert {tool.REFERENCE[s] for s in ("xarray", "opt_einsum", "einx")} == {"numpy"}
    xr, oe, ex = tool.SUITES["xarray"], tool.SUITES["opt_einsum"], tool.SUITES["einx"]
    # xarray's table: jax.numpy is not numpy
    assert tool.backend_of("w.py::TestX::test_mean[True-stridedarray]", xr) == "stridedarray"
    assert tool.backend_of("w.py::TestX::test_mean[True-numpy]", xr) == "numpy"
    assert tool.backend_of("w.py::TestX::test_mean[True-jax.numpy]", xr) is None
    assert tool.backend_of("s.py::test_chain[array_api_strict-3]", oe) == "array_api_strict"
    # einx names a setup "<library>.<einx backend>": numpylike is not numpy
    assert tool.backend_of("t.py::test_v[stridedarray.arrayapi.numpylike]", ex) == "stridedarray"
    assert tool.backend_of("t.py::test_v[numpy.arrayapi.numpylike]", ex) == "numpy"
    assert tool.backend_of("t.py::test_v[numpy.numpy.in_new_thread]", ex) == "numpy"
    assert tool.backend_of("t.py::test_v[dask.arrayapi]", ex) is None
    for sa_id, np_id in [
        ("t.py::test_v[stridedarray.arrayapi.einsum]", "t.py::test_v[numpy.arrayapi.einsum]"),
        ("w.py::TestX::test_std[False-stridedarray]", "w.py::TestX::test_std[False-numpy]"),
        (
            "s.py::test_sharing_value[stridedarray-ab,bc->ca]",
            "s.py::test_sharing_value[numpy-ab,bc->ca]",
        ),
    ]:
        assert tool.twin_key(sa_id, "stridedarray") == tool.twin_key(np_id, "numpy")


def test_prepare_einx_copies_its_tests(tool, tmp_path):
    src = tmp_path / "einx-0.0"
    (src / "test").mkdir(parents=True)
    (src / "test/conftest.py").write_text("setup_backend = []\n")
    (src / "test/test_x.py").write_text("def test_x():\n    pass\n")
    tree = tool.prepare_einx("python", src, tmp_path / "scratch")
    assert sorted(p.name for p in (tree / "test").iterdir()) == ["conftest.py", "test_x.py"]
    (src / "test/conftest.py").unlink()
    with pytest.raises(SystemExit, match="holds no test/conftest.py"):
        tool.prepare_einx("python", src, tmp_path / "scratch")
