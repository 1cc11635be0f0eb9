"""Shared pytest setup: the hypothesis profile every test file runs under, and which
stridedarray is under test.

Reusable strategies live in tests/strategies.py (`from strategies import views, ...`); this
directory is put on sys.path so that import works however pytest is invoked.

The header of every run says where the stridedarray under test was imported from. With
STRIDEDARRAY_TEST_INSTALLED=1 (CI's run against an installed wheel) the run stops at once if
that is a source tree rather than an installed package: `python -m pytest` puts the current
directory first on sys.path, so run from the root of a checkout it would test the checkout.
"""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

INSTALLED = os.environ.get("STRIDEDARRAY_TEST_INSTALLED") == "1"
# The research benchmarks (benchmarks/, beside tests/) are in the checkout only, never installed.
# Their tests (marked `checkout`) import them from there however pytest is started (`pytest`
# puts tests/ on sys.path, not the root): the root goes last, so that it never hides an
# installed stridedarray. Against an installed wheel, or where benchmarks/ was not copied
# beside the tests, those tests are skipped.
_CHECKOUT = Path(__file__).resolve().parent.parent
LAB = not INSTALLED and (_CHECKOUT / "benchmarks" / "__init__.py").is_file()
if LAB:
    sys.path.append(str(_CHECKOUT))

# SciPy reads SCIPY_ARRAY_API once, when it is first imported, and scikit-learn refuses
# array_api_dispatch without it: set it before any test module imports either (the client
# tests, tests/interop/test_clients_learn.py). An explicit setting in the environment is kept.
os.environ.setdefault("SCIPY_ARRAY_API", "1")


def _under_test() -> tuple[str, Path]:
    """The version of the stridedarray the tests import, and its package directory."""
    import stridedarray  # here, not at the top: SCIPY_ARRAY_API must be set first

    return stridedarray.__version__, Path(stridedarray.__file__).resolve().parent


def pytest_configure(config):
    _, pkg = _under_test()
    if INSTALLED and (
        "site-packages" not in pkg.parts or pkg.parent == Path(__file__).resolve().parent.parent
    ):
        raise pytest.UsageError(
            f"STRIDEDARRAY_TEST_INSTALLED=1, but stridedarray was imported "
            f"from {pkg}, not from an installed package"
        )


def pytest_collection_modifyitems(config, items):
    if LAB:
        return
    skip = pytest.mark.skip(
        reason="needs the repository's checkout: benchmarks/ is not installed with the wheel"
    )
    for item in items:
        if item.get_closest_marker("checkout") is not None:
            item.add_marker(skip)


def pytest_report_header(config):
    version, pkg = _under_test()
    return f"stridedarray {version} from {pkg}"


# No deadlines: the machine has 2 cores shared with builds, so per-example timing is noise.
# Example counts are chosen per test with @settings(max_examples=...).
settings.register_profile(
    "stridedarray",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("stridedarray")


# What each test module checks, as markers that the module gives itself (`pytestmark` at its
# top, so that a module carries its markers wherever it moves), so that a run can select by
# them (`-m install`); a test that needs one its module lacks carries it itself (a decorator,
# which tools/checks/sanitize also reads). CI (.ci/run) runs the whole suite on the oldest and the
# newest supported Python and, on the Pythons between, the modules whose outcome can differ by
# Python version or by how the package is installed. pyproject.toml registers the markers.
# - c_core: the modules of the C core (the matmul core and the array type, csrc/) and what
#   calls into it: the sanitizer run's selection (tools/checks/sanitize).
# - version_sensitive: what the interpreter's version can change: the array type's C entry
#   points and their reference counting, the interpreter-facing temporary elision and free
#   list, the buffer, DLPack and NumPy protocols, pickling, threads and fork, NumPy scalars,
#   typing. A new module that reaches CPython's C API or the interpreter's internals has it.
# - install: what reads the installed files, the distributions or the tools beside the tests:
#   the build and its bundled libraries, the dist checks, the command-line entry points, the
#   documentation's examples, the import graph, the typing marker file.
# - serial: modules whose tests should not share the machine with another test process
#   (pytest -n under pytest-xdist): tests/matmul/test_parallel.py runs the core's threads on more
#   bands than cores; its results do not depend on the load, but beside a second test process
#   its products wait for descheduled workers and the module runs much longer. CI runs them
#   in a pass of their own, after the parallel one.
# - checkout: modules that need the repository's checkout, not only the installed package: the
#   research benchmarks of benchmarks/, which are not installed. They import it inside their
#   tests (so collecting them needs nothing of the checkout), and are skipped, with that
#   reason, when STRIDEDARRAY_TEST_INSTALLED=1 or benchmarks/ is not beside tests/.
