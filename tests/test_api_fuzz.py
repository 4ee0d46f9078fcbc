"""Property-based fuzzing of the whole HTTP API with schemathesis: requests generated from
the live server's own ``/api/openapi.json`` (valid and invalid bodies, paths and queries)
never get a server error, and every refusal has the one error shape.  Example counts are
bounded so the run stays well under a minute."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from sanma.server.settings import Settings
from tests.fixtures.server import LiveServer
from tests.services import free_port

EXAMPLES = 15


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data = Path(tmp_path_factory.mktemp("fuzz")) / "data"
    # The meters wide open, so that the cases reach the routes instead of a 429 (which the
    # checks would accept all the same: tests/test_http_edge.py tests the meters).
    many = 100_000
    settings = Settings(port=free_port(), data_dir=data, bot_delay_s=0.0, account_writes_per_min=many)
    settings = settings.with_changes(
        guests_per_address_per_h=many,
        rooms_per_guest_per_h=many,
        rooms_per_address_per_h=many,
        practice_per_guest_per_min=many,
        practice_per_address_per_min=many,
        practice_live_per_guest=many,
        practice_live_per_address=many,
    )
    server = LiveServer(settings)
    yield server
    server.stop()


def fresh_token(live: LiveServer) -> str:
    return str(httpx.post(f"{live.http}/api/guest").json()["token"])


@pytest.fixture(scope="module")
def token(live: LiveServer) -> str:
    return fresh_token(live)


@pytest.fixture(scope="module")
def operations(live: LiveServer) -> list[schemathesis.APIOperation]:
    loaded = schemathesis.openapi.from_url(f"{live.http}/api/openapi.json")
    return [result.ok() for result in loaded.get_all_operations()]


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_error(
    operations: list[schemathesis.APIOperation], live: LiveServer, token: str, mode: GenerationMode
) -> None:
    assert len(operations) >= 15
    headers = {"Authorization": f"Bearer {token}"}

    for operation in operations:

        @given(case=operation.as_strategy(mode))
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case: schemathesis.Case) -> None:
            # Deleting the account would leave every later case a 401: such a case deletes a guest of its own.
            own = {"Authorization": f"Bearer {fresh_token(live)}"} if case.path == "/api/account/delete" else headers
            response = case.call(base_url=live.http, headers=own, timeout=30)
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            if response.status_code >= 400:
                body = response.json()
                assert set(body) == {"error", "detail"}, (case.method, case.formatted_path, body)

        try:
            check()
        except Unsatisfiable:
            # Nothing to break: an operation without parameters or body has no invalid request.
            assert mode is GenerationMode.NEGATIVE, operation.label
