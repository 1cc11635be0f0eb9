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

# SciPy reads SCIPY_ARRAY_API once, when it is first imported, and scikit-learn refuses
# array_api_dispatch without it: set it before any test module imports either (the client
# tests, tests/test_clients_learn.py). An explicit setting in the environment is kept.
os.environ.setdefault("SCIPY_ARRAY_API", "1")


def _under_test() -> tuple[str, Path]:
    """The version of the stridedarray the tests import, and its package directory."""
    import stridedarray  # here, not at the top: SCIPY_ARRAY_API must be set first

    return stridedarray.__version__, Path(stridedarray.__file__).resolve().parent


def pytest_configure(config):
    _, pkg = _under_test()
    # The stall guard (csrc/sa_threads.c) runs every call on one thread for a while after a
    # parallel region waited on a descheduled worker. On a loaded machine it fires at random,
    # so what a call allocates, how it splits and how many threads it reports would depend on
    # the load: tests run with it off (tests/test_parallel.py switches it on to test it).
    from stridedarray._ffi import lib

    lib.sa_threads_set_guard(0)
    if os.environ.get("STRIDEDARRAY_TEST_INSTALLED") == "1" and (
        "site-packages" not in pkg.parts or pkg.parent == Path(__file__).resolve().parent.parent
    ):
        raise pytest.UsageError(
            f"STRIDEDARRAY_TEST_INSTALLED=1, but stridedarray was imported "
            f"from {pkg}, not from an installed package"
        )


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
