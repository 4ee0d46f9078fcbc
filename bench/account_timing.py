"""Do the account-recovery answers take the same time for a registered and an unknown address?

Starts the server in-process (uvicorn in a thread, SQLite in a temp folder, mail to the
outbox), links one address, then alternates ``POST /api/account/recover`` (and
``/recover/verify`` with a wrong code) for the registered and an unknown address and prints
the median answer times side by side with their ratio.  A timing side channel would show as a
ratio far from 1.  (The test suite checks the answers are identical; time belongs here.)

    .venv/bin/python bench/account_timing.py --rounds 200
"""

from __future__ import annotations

import argparse
import logging
import socket
import statistics
import tempfile
import threading
import time
from email import message_from_bytes
from pathlib import Path

import httpx
import uvicorn

from sanma.server.app import create_app
from sanma.server.serving import uvicorn_config
from sanma.server.settings import Settings

KNOWN, UNKNOWN = "known@example.org", "unknown@example.org"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    logging.getLogger("sanma.mail").setLevel(logging.WARNING)  # one line per mail otherwise
    with tempfile.TemporaryDirectory() as tmp:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        big = 1_000_000
        settings = Settings(port=port, data_dir=Path(tmp)).with_changes(
            codes_per_address_per_h=big,
            codes_per_client_per_h=big,
            codes_per_guest_per_h=big,
            code_checks_per_client_per_h=big,
            account_writes_per_min=big,
            guests_per_address_per_h=big,
        )
        server = uvicorn.Server(uvicorn_config(create_app(settings), settings))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        try:
            run(f"http://127.0.0.1:{port}", Path(tmp) / "outbox", args.rounds)
        finally:
            server.should_exit = True
            thread.join(timeout=15)


def run(base: str, outbox: Path, rounds: int) -> None:
    with httpx.Client(base_url=base, timeout=30) as client:
        owner = client.post("/api/guest").json()["token"]
        client.post("/api/account/email", json={"email": KNOWN}, headers={"Authorization": f"Bearer {owner}"})
        code = _code_from_outbox(outbox)
        r = client.post(
            "/api/account/email/verify",
            json={"email": KNOWN, "code": code},
            headers={"Authorization": f"Bearer {owner}"},
        )
        assert r.status_code == 200, r.text
        client.headers["Authorization"] = f"Bearer {client.post('/api/guest').json()['token']}"
        asks: dict[str, list[float]] = {KNOWN: [], UNKNOWN: []}
        checks: dict[str, list[float]] = {KNOWN: [], UNKNOWN: []}
        for i in range(rounds):
            for email in (KNOWN, UNKNOWN) if i % 2 else (UNKNOWN, KNOWN):
                start = time.perf_counter()
                client.post("/api/account/recover", json={"email": email})
                asks[email].append(time.perf_counter() - start)
                start = time.perf_counter()
                client.post("/api/account/recover/verify", json={"email": email, "code": f"{i:08d}"})
                checks[email].append(time.perf_counter() - start)
    print(f"{'request':<24}{'registered ms':>15}{'unknown ms':>13}{'ratio':>8}   ({rounds} rounds, medians)")
    for name, times in (("recover (ask a code)", asks), ("recover/verify (wrong)", checks)):
        a, b = statistics.median(times[KNOWN]) * 1000, statistics.median(times[UNKNOWN]) * 1000
        print(f"{name:<24}{a:>15.2f}{b:>13.2f}{a / b:>8.2f}")


def _code_from_outbox(outbox: Path) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for path in sorted(outbox.glob("*.eml")):
            body = message_from_bytes(path.read_bytes()).get_payload(decode=False)
            text = body if isinstance(body, str) else str(body[0].get_payload(decode=True), "utf-8")
            digits = [w for w in text.split() if w.isdigit() and len(w) >= 6]
            if digits:
                return digits[0]
        time.sleep(0.05)
    raise SystemExit("no code arrived in the outbox")


if __name__ == "__main__":
    main()
