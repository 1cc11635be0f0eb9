"""Shared pytest setup: the hypothesis profile every test file runs under.

Reusable strategies live in tests/strategies.py (`from strategies import views, ...`); this
directory is put on sys.path so that import works however pytest is invoked.
"""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# SciPy reads SCIPY_ARRAY_API once, when it is first imported, and scikit-learn refuses
# array_api_dispatch without it: set it before any test module imports either (the client
# tests, tests/test_clients.py). An explicit setting in the environment is kept.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

# No deadlines: the machine has 2 cores shared with builds, so per-example timing is noise.
# Example counts are chosen per test with @settings(max_examples=...).
settings.register_profile(
    "stridedarray", deadline=None, suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("stridedarray")
