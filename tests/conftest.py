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


# The fixtures that start a service beside the test: PostgreSQL, Redis (and processes on them), nginx.
SERVICE_FIXTURES = frozenset({"postgres_url", "database_url", "redis_url", "nodes", "deployment"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it needs (``markers`` in pyproject.toml): ``browser`` when it uses
    the browser fixture; ``services`` when it starts PostgreSQL, Redis or nginx (one of those
    fixtures, or a parameter "postgresql": each store test runs on SQLite and on PostgreSQL).
    The fast lane leaves both out, and ``slow``, which is set by hand."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        if "browser" in names:
            item.add_marker(pytest.mark.browser)
        if names & SERVICE_FIXTURES or any(isinstance(v, str) and v == "postgresql" for v in params.values()):
            item.add_marker(pytest.mark.services)
