"""Shared pytest setup: the hypothesis profile every test file runs under.

Reusable strategies live in tests/strategies.py (`from strategies import views, ...`); this
directory is put on sys.path so that import works however pytest is invoked.
"""

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# No deadlines: the machine has 2 cores shared with builds, so per-example timing is noise.
# Example counts are chosen per test with @settings(max_examples=...).
settings.register_profile(
    "stridedarray", deadline=None, suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("stridedarray")
