"""Metrics and logs of a real server (``server/metrics.py``, ``server/logformat.py``,
``docs/server.md`` "Metrics" and "Logs"): a seeded practice match played to the end over the
real WebSocket while ``/metrics`` is scraped on its own port, the counters and gauges moving
as the match does; ``/metrics`` absent from the public port; and ``sanma serve`` with JSON
lines, every line an object with its fields and none holding a token, its hash or an address."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from sanma.bots.base import Player
from sanma.engine.actions import Action
from sanma.engine.kyoku import LegalActions
from sanma.server.settings import Settings
from sanma.store.guests import token_hash
from tests.fixtures.server import SEEDS, Client, LiveServer, new_guest, new_match, play_to_end, serving
from tests.services import ServeProcess, free_port

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(url: str) -> Samples:
    """Every sample of the exposition at ``url``, parsed by prometheus_client's own parser."""
    r = httpx.get(url, timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain"), r.text
    samples: Samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over the samples of ``name`` whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    yield from serving(tmp_path / "data", metrics_port=free_port())


@pytest.mark.slow
def test_the_counters_move_with_a_seeded_match(live):
    url = f"http://127.0.0.1:{live.settings.metrics_port}/metrics"
    before = scrape(url)
    assert total(before, "sanma_events_appended_total") == 0
    token = new_guest(live)
    match = new_match(live, token, level="expert", length="one-hand")
    client = Client(live, token, match)
    prompt = client.until("prompt")
    during = scrape(url)
    assert value(during, "sanma_sockets", kind="player") == 1
    assert value(during, "sanma_tables", kind="practice", state="playing") == 1
    assert value(during, "sanma_matches_total", kind="practice", phase="started") == 1
    assert total(during, "sanma_events_appended_total") >= 2  # MatchStarted, HandStarted, ...
    # Route templates and status classes, never raw paths.
    assert value(during, "sanma_http_answers_total", route="/api/guest", status="2xx") == 1
    assert value(during, "sanma_http_answers_total", route="/api/practice", status="2xx") == 1
    play_to_end(client, prompt)
    # The room counts the end after the last event went out: look until it has.
    deadline = time.monotonic() + 10
    while value(after := scrape(url), "sanma_matches_total", kind="practice", phase="ended") < 1:
        assert time.monotonic() < deadline, "the match's end was not counted"
        time.sleep(0.05)
    events = [f for f in client.frames if f["t"] == "event"]
    assert total(after, "sanma_events_appended_total") == max(f["v"] for f in events)
    ok = value(after, "sanma_bot_decisions_total", level="expert", outcome="ok")
    assert ok > total(during, "sanma_bot_decisions_total") and ok > 0
    assert value(after, "sanma_bot_decision_seconds_count", level="expert") == total(after, "sanma_bot_decisions_total")
    assert value(after, "sanma_tables", kind="practice", state="ended") == 1
    assert total(after, "sanma_store_seconds_count", statement="insert") > total(
        during, "sanma_store_seconds_count", statement="insert"
    )
    # The lag probe wakes every LAG_PERIOD_S: a quick match can end before its first wake.
    deadline = time.monotonic() + 10
    while total(scrape(url), "sanma_event_loop_lag_seconds_count") < 1:
        assert time.monotonic() < deadline, "the event loop's lag was never measured"
        time.sleep(0.1)
    client.close()
    deadline = time.monotonic() + 10
    while value(scrape(url), "sanma_sockets", kind="player") != 0:
        assert time.monotonic() < deadline, "the closed socket is still counted"
        time.sleep(0.05)
    # An error frame counts by its code.
    bad = Client(live, "no-such-token", match)
    assert bad.until("error")["code"] == "unauthorized"
    bad.close()
    assert value(scrape(url), "sanma_socket_errors_total", code="unauthorized") == 1


def test_metrics_are_not_on_the_public_port(live, tmp_path):
    assert httpx.get(f"{live.http}/metrics").status_code == 404
    assert httpx.get(f"http://127.0.0.1:{live.settings.metrics_port}/api/health").status_code == 404
    # An unknown API path counts under one label, whatever the path.
    for path in ("/api/nowhere/1", "/api/nowhere/2"):
        assert httpx.get(f"{live.http}{path}").status_code == 404
    samples = scrape(f"http://127.0.0.1:{live.settings.metrics_port}/metrics")
    assert value(samples, "sanma_http_answers_total", route="(none)", status="4xx") == 2
    assert not [ls for (n, ls) in samples if n == "sanma_http_answers_total" and ("route", "/api/nowhere/1") in ls]
    # Off by default: no port of its own.
    assert Settings().metrics_port == 0 and Settings.from_env({}).metrics_port == 0


@pytest.mark.slow
def test_json_log_lines_with_their_fields_and_no_secrets(tmp_path):
    env = {
        "SANMA_DATA_DIR": str(tmp_path / "data"),
        "SANMA_BOT_DELAY": "0",
        "SANMA_LOG_FORMAT": "json",
        "SANMA_METRICS_PORT": str(free_port()),
    }
    log = tmp_path / "serve.log"
    live = ServeProcess(free_port(), env, log)
    address = "Annabel.Lee@example.org"
    try:
        token = new_guest(live)  # type: ignore[arg-type]
        headers = {"Authorization": f"Bearer {token}"}
        r = httpx.post(f"{live.http}/api/account/email", json={"email": address}, headers=headers)
        assert r.status_code == 202, r.text
        match = new_match(live, token, level="normal")  # type: ignore[arg-type]
        client = Client(live, token, match)  # type: ignore[arg-type]
        play_to_end(client, client.until("prompt"))
        client.close()
        deadline = time.monotonic() + 10
        while '"match_ended"' not in log.read_text() or "written to" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.05)
    finally:
        live.stop()
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    for line in lines:
        assert {"time", "level", "logger", "message"} <= set(line), line
    events = {line.get("event") for line in lines}
    assert {"server_started", "match_started", "match_ended", "server_stopped"} <= events, events
    started = next(line for line in lines if line.get("event") == "match_started")
    assert started["match"] == match and started["kind"] == "practice"
    for secret in (token, token_hash(token), address):
        assert secret.lower() not in text.lower()
    assert "annabel" not in text.lower()


class BrokenBot(Player):
    """A bot whose every decision raises: the table plays its default and goes on."""

    name = "Expert"

    def decide(self, legal: LegalActions) -> Action:
        raise RuntimeError("out of ideas")


@pytest.mark.slow
def test_a_broken_bot_is_counted_and_logged(tmp_path, caplog):
    settings = Settings(port=free_port(), data_dir=tmp_path / "data", bot_delay_s=0.0).with_changes(
        metrics_port=free_port()
    )
    live = LiveServer(settings, seed_source=lambda: SEEDS[0], make_bot=lambda _level, seat, _seed: BrokenBot(seat))
    try:
        with caplog.at_level(logging.WARNING, logger="sanma"):
            token = new_guest(live)
            client = Client(live, token, new_match(live, token, level="expert"))
            play_to_end(client, client.until("prompt"))
            client.close()
        samples = scrape(f"http://127.0.0.1:{settings.metrics_port}/metrics")
    finally:
        live.stop()
    errors = value(samples, "sanma_bot_decisions_total", level="expert", outcome="error")
    assert errors > 0 and total(samples, "sanma_bot_decisions_total", outcome="ok") == 0
    faults = [r for r in caplog.records if getattr(r, "event", None) == "bot_error"]
    assert len(faults) == errors and all(r.level == "expert" for r in faults)  # type: ignore[attr-defined]
