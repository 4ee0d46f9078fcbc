"""``ThrottledLog``: one line per (kind, key) a window, the count of what was held back in the
next line, tracebacks kept, and a bounded memory when a flood comes from many addresses (a
clock of the test's own, real logging records through pytest's caplog)."""

from __future__ import annotations

import logging

import pytest

from sanma.server.throttlelog import OTHERS, ThrottledLog


@pytest.fixture
def now() -> list[float]:
    return [1000.0]


def quiet(now: list[float], **options: int) -> ThrottledLog:
    return ThrottledLog(logging.getLogger("test.throttled"), clock=lambda: now[0], **options)


def test_one_line_a_minute_per_kind_and_address_and_the_count_held_back(now, caplog):
    log = quiet(now)
    caplog.set_level(logging.WARNING, logger="test.throttled")
    for _ in range(50):
        log.write(logging.WARNING, "bad_json", "192.0.2.1", "refused from %s", "192.0.2.1")
    log.write(logging.WARNING, "too_large", "192.0.2.1", "refused from %s", "192.0.2.1")  # another kind
    log.write(logging.WARNING, "bad_json", "192.0.2.2", "refused from %s", "192.0.2.2")  # another address
    assert [r.getMessage() for r in caplog.records] == ["refused from 192.0.2.1"] * 2 + ["refused from 192.0.2.2"]
    now[0] += 59.0
    assert not log.write(logging.WARNING, "bad_json", "192.0.2.1", "refused from %s", "192.0.2.1")
    now[0] += 1.0
    assert log.write(logging.WARNING, "bad_json", "192.0.2.1", "refused from %s", "192.0.2.1")
    assert caplog.records[-1].getMessage() == "refused from 192.0.2.1 (50 more like it held back in the last 60 s)"
    assert log.held("bad_json", "192.0.2.1") == 0


def test_a_fault_keeps_its_traceback_once_a_window(now, caplog):
    log = quiet(now)
    caplog.set_level(logging.ERROR, logger="test.throttled")
    for _ in range(10):
        try:
            1 / 0  # noqa: B018
        except ZeroDivisionError as exc:
            log.write(logging.ERROR, "server_error", "ZeroDivisionError at GET /x", "500: %s", "x", exc_info=exc)
    [record] = caplog.records
    assert record.exc_info is not None and record.exc_info[0] is ZeroDivisionError


def test_many_addresses_share_one_line_beyond_the_keys_remembered(now, caplog):
    log = quiet(now, max_keys=10)
    caplog.set_level(logging.WARNING, logger="test.throttled")
    for i in range(1000):
        log.write(logging.WARNING, "bad_json", f"198.51.100.{i % 250}-{i}", "refused")
    assert len(caplog.records) == 11  # ten addresses, then the rest as one
    assert log.held("bad_json", OTHERS) == 1000 - 11
    now[0] += 61.0  # the old windows are forgotten when new keys need the room
    log.write(logging.WARNING, "bad_json", "203.0.113.1", "refused")
    assert caplog.records[-1].getMessage() == "refused"
