"""Shared fixtures: where the shared test data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

# The fixtures several modules request by name (each keeps its scope; a module's own fixture of the
# same name overrides these): browser (one per module), live and shots; inbox;
# any_engine and postgres_url; database_url, redis_url and nodes.
pytest_plugins = [
    "tests.fixtures.accounts",
    "tests.fixtures.browser",
    "tests.fixtures.replays",
    "tests.fixtures.scaleout",
]

SHARED_TESTDATA = Path(__file__).resolve().parents[1].parent / "shared" / "testdata"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def shared_testdata() -> Path:
    """``../shared/testdata``; tests that need it skip with a clear message when absent."""
    if not SHARED_TESTDATA.is_dir():
        pytest.skip(f"shared test data not found at {SHARED_TESTDATA} (it is never copied into the repo)")
    return SHARED_TESTDATA
