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

import stridedarray

sys.path.insert(0, str(Path(__file__).resolve().parent))

_UNDER_TEST = Path(stridedarray.__file__).resolve().parent
if os.environ.get("STRIDEDARRAY_TEST_INSTALLED") == "1" and (
        "site-packages" not in _UNDER_TEST.parts
        or _UNDER_TEST.parent == Path(__file__).resolve().parent.parent):
    raise pytest.UsageError(f"STRIDEDARRAY_TEST_INSTALLED=1, but stridedarray was imported from "
                            f"{_UNDER_TEST}, not from an installed package")


def pytest_report_header(config):
    return f"stridedarray {stridedarray.__version__} from {_UNDER_TEST}"


# No deadlines: the machine has 2 cores shared with builds, so per-example timing is noise.
# Example counts are chosen per test with @settings(max_examples=...).
settings.register_profile(
    "stridedarray", deadline=None, suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("stridedarray")
