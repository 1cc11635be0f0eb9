"""pytest plugin: writes ``OUTCOME<TAB>NODEID<TAB>MESSAGE``, a line per test, to ``$PEER_OUTCOMES``.

OUTCOME is one of passed, failed, error, skipped, xfailed, xpassed: a test whose setup or
teardown raised is ``error`` (unless its call already failed), as in pytest's summary line.
Used by tools/suites/run-peer-suites to count outcomes per array backend; with pytest-xdist only the
controller writes. MESSAGE is the first line of the error of a failed test, or the reason of
a skipped or xfailed one (tabs and newlines replaced by spaces, cut to 300 characters).
"""

from __future__ import annotations

import os

_outcomes: dict[str, tuple[str, str]] = {}


def _message(report) -> str:
    longrepr = report.longrepr
    if longrepr is None:
        text = getattr(report, "wasxfail", "")
    elif isinstance(longrepr, tuple):  # a skip: (path, line, reason)
        text = str(longrepr[-1])
    else:
        crash = getattr(longrepr, "reprcrash", None)
        text = crash.message if crash is not None else str(longrepr).strip().splitlines()[-1]
    return " ".join(text.split())[:300]


def _outcome(report) -> str | None:
    if hasattr(report, "wasxfail"):
        if report.skipped:
            return "xfailed"
        if report.passed or report.failed:
            # A strict xpass is reported as failed; a non-strict one as passed.
            return "failed" if report.failed else "xpassed"
    if report.when == "call":
        return report.outcome
    if report.failed:
        return "error"
    if report.skipped:
        return "skipped"
    return None


def pytest_runtest_logreport(report):
    outcome = _outcome(report)
    if outcome is None:
        return
    previous = _outcomes.get(report.nodeid, (None, ""))[0]
    # A teardown error after a failed call stays "failed"; a passed call followed by a teardown
    # error becomes "error"; setup's "skipped"/"error" stands, since there is no call.
    if previous in (None, "passed") or (previous == "xpassed" and outcome == "error"):
        _outcomes[report.nodeid] = (outcome, _message(report))


def pytest_collectreport(report):
    if report.failed:
        _outcomes[report.nodeid] = ("error", _message(report))


def pytest_sessionfinish(session):
    path = os.environ.get("PEER_OUTCOMES")
    if not path or hasattr(session.config, "workerinput"):
        return
    with open(path, "w", encoding="utf-8") as f:
        for nodeid, (outcome, message) in _outcomes.items():
            f.write(f"{outcome}\t{nodeid}\t{message}\n")
