"""Benchmark: the browser game's page weight, time to the first interactive table, and the
server's CPU time per action.

* **Page weight**: every file the page loads (start screen; then a table; then the Rules
  panel with the guide), bytes as served and gzip -6 of each, from Playwright's responses.
* **Time to first interactive table**: a fresh browser context whose guest already has a
  match; from navigation to the first clickable hand tile (``performance.now()`` at that
  moment, so browser start-up is not counted); median and spread of ``--runs`` loads.  The
  moment is taken by a MutationObserver the context installs before the page's own scripts,
  which reports on the console: nothing of the benchmark runs in the page during the load.
  (Playwright's ``wait_for_function`` did: its first call evaluates Playwright's injected
  script, about 45 ms on the main thread, in the middle of the load; that delayed the socket's
  ``open`` and the first frame and added about 100-170 ms to every figure before Dec 2026.)
* **Motion and sound** (issue 11): the share of the page weight that the motion, sound and
  icon modules take (the sounds are synthesised, so no audio files); on a phone-size touch
  screen (844x390) one seeded one-hand match played by clicking, twice: with motion and with
  ``prefers-reduced-motion`` (no animation), counting the long tasks (over 50 ms, the
  ``longtask`` performance entries) per hand and the main thread's busy time (CDP
  ``Performance.getMetrics`` ``TaskDuration``) per table action (an event the page folded):
  the difference is what the motion costs per action; the page's own user-timing measure
  ``sanma:fx`` gives the script time of starting the effects.
* **Server CPU per action**: a server process of its own (uvicorn, SQLite in a temporary
  folder, no pacing) plays ``--matches`` seeded one-hand practice matches against Beginner
  bots, driven by a WebSocket client that takes a win when offered, else the default.  Its
  process CPU time (``/proc/<pid>/stat``) over the matches, divided by the actions applied
  (every seat's), compared with the bare engine + bots playing the same matches in this
  process (``time.process_time``): the ratio is what serving costs on top of the game.

    .venv/bin/python bench/web_perf.py [--runs 7] [--matches 20] [--seed 1] [--phone-hands 1]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from websockets.sync.client import connect

from sanma.bots.base import ask
from sanma.bots.registry import make_bot
from sanma.engine.actions import Ron, Tsumo
from sanma.engine.match import Match
from sanma.engine.rules import DEFAULT
from sanma.engine.visibility import redact
from sanma.server.aids import prompt_aids
from sanma.server.rooms.practice import bot_seed

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
CLICKABLE = ".hand.my-turn .hand-tile:not(.blocked)"
ROOT = Path(__file__).resolve().parents[1]


# -- a server process of its own -----------------------------------------------------------


def serve_child(port: int, data_dir: str, first_seed: int) -> None:
    """Run in the child: the app with seeds first_seed, first_seed + 1, ... and no pacing."""
    import itertools

    from sanma.server.app import create_app
    from sanma.server.serving import serve
    from sanma.server.settings import Settings

    seeds = itertools.count(first_seed)
    settings = Settings(port=port, data_dir=Path(data_dir), bot_delay_s=0.0, rate_per_s=1000.0, rate_burst=2000)
    settings = settings.with_changes(
        practice_per_guest_per_min=100_000,
        practice_per_address_per_min=100_000,
        practice_live_per_guest=100_000,
        practice_live_per_address=100_000,
        guests_per_address_per_h=100_000,
    )
    serve(create_app(settings, seed_source=lambda: next(seeds)), settings)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data_dir: str, first_seed: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, __file__, "--serve-child", str(port), data_dir, str(first_seed)]
    proc = subprocess.Popen(cmd, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def new_guest(url: str) -> str:
    return str(httpx.post(f"{url}/api/guest").json()["token"])


def new_match(url: str, token: str) -> str:
    body = {"length": "one-hand", "red_fives": True, "level": "beginner", "seat": 0}
    r = httpx.post(f"{url}/api/practice", json=body, headers={"Authorization": f"Bearer {token}"})
    r.raise_for_status()
    return str(r.json()["match"])


# -- page weight and time to the first interactive table -----------------------------------


def page_weight(url: str) -> list[tuple[str, int, int, int]]:
    """(stage, files, bytes, gzip bytes) for the start screen, the table and the rules panel."""
    from playwright.sync_api import sync_playwright

    loaded: dict[str, bytes] = {}
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.on("response", lambda r: _keep(loaded, r))
        page.goto(url + "/")
        page.wait_for_selector("#play")
        page.wait_for_load_state("networkidle")
        rows.append(_weight("start screen", loaded))
        page.click("#play")
        page.wait_for_selector(CLICKABLE)
        page.wait_for_load_state("networkidle")
        rows.append(_weight("+ table", loaded))
        page.click("#menu-btn")
        page.click("#menu [data-cmd=rules]")
        page.wait_for_selector("[data-testid=guide]")
        page.wait_for_load_state("networkidle")
        rows.append(_weight("+ rules and guide", loaded))
        browser.close()
    return rows


def _keep(loaded: dict[str, bytes], response: Any) -> None:
    """Keep a GET response's body; one still arriving when the browser closes is not counted."""
    if response.request.method != "GET":
        return
    try:
        loaded.setdefault(response.url, response.body())
    except Exception:  # the page closed under it (TargetClosedError)
        return


def _weight(stage: str, loaded: dict[str, bytes]) -> tuple[str, int, int, int]:
    files = {u: b for u, b in loaded.items() if "/api/" not in u}
    return (stage, len(files), sum(map(len, files.values())), sum(len(gzip.compress(b, 6)) for b in files.values()))


# Installed in each context before the page's scripts: the first moment a hand tile may be
# clicked, kept on the window and announced on the console (what the benchmark waits for).
FIRST_CLICKABLE = """
new MutationObserver((_, observer) => {
  if (document.querySelector(CLICKABLE_SELECTOR)) {
    observer.disconnect();
    window.__firstClickable = performance.now();
    console.log("sanma:first-clickable");
  }
}).observe(document, { childList: true, subtree: true, attributes: true });
""".replace("CLICKABLE_SELECTOR", json.dumps(CLICKABLE))


def time_to_table(url: str, runs: int) -> list[float]:
    """Milliseconds from navigation to the first clickable hand tile, one fresh context each."""
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(runs + 1):
            token = new_guest(url)
            new_match(url, token)
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.add_init_script(f"localStorage.setItem('sanma.token', {json.dumps(token)})")
            context.add_init_script(FIRST_CLICKABLE)
            page = context.new_page()
            with page.expect_console_message(lambda m: m.text == "sanma:first-clickable", timeout=60_000):
                page.goto(url + "/", wait_until="commit")
            out.append(float(page.evaluate("() => window.__firstClickable")))
            context.close()
        browser.close()
    return out[1:]  # the first load warms the server's and the browser's caches


# -- motion and sound at phone size ------------------------------------------------------------

PHONE = {"width": 844, "height": 390}
MOTION_MODULES = ("/src/motion.js", "/src/sound.js", "/src/icons.js")
# Long tasks and the number of events folded, kept by the page from its first script on.
LONG_TASKS = """
window.__perf = { long: [], events: 0 };
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__perf.long.push(e.duration); })
  .observe({ type: "longtask", buffered: true });
"""
# What the player does: win when offered, else Skip a call, else discard the drawn tile.
STEP = """() => {
  const el = document.querySelector('#actions .action-tsumo, #actions .action-ron')
    || document.querySelector('#actions .action-pass')
    || [...document.querySelectorAll('.hand.my-turn .hand-tile:not(.blocked)')].pop()
    || document.querySelector('#overlay:not([hidden]) [data-panel=next]');
  if (el) el.click();
  return Boolean(document.querySelector('[data-testid=match-end]'));
}"""


READ_PERF = """() => ({ long: window.__perf.long, events: performance.getEntriesByName("sanma:event").length,
  fx: performance.getEntriesByName("sanma:fx").map((e) => e.duration) })"""


def motion_weight(url: str) -> int:
    """Bytes of the motion, sound and icon modules as served."""
    return sum(len(httpx.get(url + path).content) for path in MOTION_MODULES)


def phone_hand(url: str, reduced: bool, hands: int) -> dict[str, float]:
    """One seeded one-hand match per ``hands`` at phone size, by clicking: long tasks per hand,
    busy ms and events, the effects' script ms."""
    from playwright.sync_api import sync_playwright

    totals = {"long": 0.0, "long_ms": 0.0, "busy_ms": 0.0, "events": 0.0, "fx_ms": 0.0, "fx_n": 0.0}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(hands):
            token = new_guest(url)
            motion = "reduce" if reduced else "no-preference"
            context = browser.new_context(viewport=PHONE, has_touch=True, reduced_motion=motion)
            context.add_init_script(f"localStorage.setItem('sanma.token', {json.dumps(token)})")
            context.add_init_script(LONG_TASKS)
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            new_match(url, token)
            page.goto(url + "/")
            page.wait_for_selector(CLICKABLE)
            busy0 = _task_seconds(cdp)
            while not page.evaluate(STEP):
                page.wait_for_timeout(30)  # the page's own pace: bots answer at once, effects run
            page.wait_for_timeout(300)  # the last effects end
            totals["busy_ms"] += (_task_seconds(cdp) - busy0) * 1000
            perf = page.evaluate(READ_PERF)
            totals["long"] += len(perf["long"])
            totals["long_ms"] += sum(perf["long"])
            totals["fx_ms"] += sum(perf["fx"])
            totals["fx_n"] += len(perf["fx"])
            totals["events"] += perf["events"]
            context.close()
        browser.close()
    return {k: v / hands for k, v in totals.items()}


def _task_seconds(cdp: Any) -> float:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration"))


# -- server CPU per action --------------------------------------------------------------------


def choose(prompt: dict[str, Any]) -> dict[str, Any]:
    for action in prompt["legal"]:
        if action["type"] in ("tsumo", "ron"):
            return dict(action)
    return dict(prompt["default"])


def play_over_socket(url: str, matches: int) -> tuple[int, int]:
    """Play ``matches`` one-hand matches; returns (human actions, events)."""
    token = new_guest(url)
    human = events = 0
    for _ in range(matches):
        match = new_match(url, token)
        with connect(url.replace("http", "ws") + "/ws", max_size=None) as ws:
            ws.send(json.dumps({"t": "hello", "token": token, "match": match, "last_v": 0}))
            while True:
                frame = json.loads(ws.recv(timeout=60))
                if frame["t"] == "prompt":
                    ws.send(json.dumps({"t": "act", "seq": frame["seq"], "a": choose(frame)}))
                    human += 1
                elif frame["t"] == "event":
                    events += 1
                    if frame["e"]["type"] == "MatchEnded":
                        break
    return human, events


def play_bare(seeds: list[int]) -> tuple[int, int, float, float]:
    """The same matches with the engine and bots alone: (actions, events, CPU seconds, and
    CPU seconds per human prompt of the aids the server adds to it, not in the first total)."""
    rules = DEFAULT.with_options(length="one-hand", red_fives=True)
    actions = events = prompts = 0
    aids_cpu = 0.0
    start = time.process_time()
    for seed in seeds:
        bots = {s: make_bot("beginner", s, bot_seed(seed, s)) for s in (1, 2)}
        match = Match(seed, rules)
        for e in match.events:
            for s, bot in bots.items():
                bot.observe(redact(e, s))
        while not match.finished:
            awaited = match.awaiting()
            movers = [s for s in awaited if s != 0]
            seat = movers[0] if movers else 0
            legal = match.legal_actions(seat)
            if seat == 0:
                before = time.process_time()
                prompt_aids(match.kyoku, 0)
                aids_cpu += time.process_time() - before
                prompts += 1
                wins = [a for a in legal if isinstance(a, Tsumo | Ron)]
                action = wins[0] if wins else legal.default
            else:
                action = ask(bots[seat], legal, 5.0).action
            assert action is not None
            new = match.apply(seat, action)
            actions += 1
            for e in new:
                for s, bot in bots.items():
                    bot.observe(redact(e, s))
        events += len(match.events)
    return actions, events, time.process_time() - start - aids_cpu, aids_cpu / max(1, prompts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="page loads for the time to the table")
    parser.add_argument("--matches", type=int, default=20, help="one-hand matches for the CPU figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--phone-hands", type=int, default=1, help="seeded hands per motion setting at phone size")
    parser.add_argument("--serve-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_child:
        port, data_dir, first_seed = args.serve_child
        serve_child(int(port), data_dir, int(first_seed))
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(tmp, args.seed)
        try:
            weights = page_weight(url)
            times = time_to_table(url, args.runs)
            motion_bytes = motion_weight(url)
            moving = phone_hand(url, False, args.phone_hands)
            still = phone_hand(url, True, args.phone_hands)
            proc_cpu_before = cpu_seconds(proc.pid)
            # The CPU figure starts on a fresh seed range so the bare run can replay it.
            human, events = play_over_socket(url, args.matches)
            server_cpu = cpu_seconds(proc.pid) - proc_cpu_before
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    # The page runs used seeds seed .. (one per match created before the CPU figure).
    first = args.seed + 1 + args.runs + 1 + 2 * args.phone_hands
    actions, bare_events, bare_cpu, aids_cpu = play_bare(list(range(first, first + args.matches)))
    print("| page stage | files | bytes | gzip bytes |\n|---|---:|---:|---:|")
    for stage, files, raw, packed in weights:
        print(f"| {stage} | {files} | {raw:,} | {packed:,} |")
    print(
        f"\ntime to first interactive table (ms, {len(times)} loads): median {statistics.median(times):.0f}, "
        f"min {min(times):.0f}, max {max(times):.0f}"
    )
    print(f"\nmotion, sound and icon modules: {motion_bytes:,} bytes (sounds synthesised: no audio files)")
    print("\n| phone 844x390, one-hand match | long tasks / hand | long-task ms / hand | busy ms / event |", end="")
    print(" effects script ms / render |")
    print("|---|---:|---:|---:|---:|")
    for label, r in (("with motion", moving), ("prefers-reduced-motion", still)):
        per_event = r["busy_ms"] / max(1.0, r["events"])
        per_fx = r["fx_ms"] / max(1.0, r["fx_n"])
        print(f"| {label} | {r['long']:.1f} | {r['long_ms']:.0f} | {per_event:.2f} | {per_fx:.3f} |")
    cost = moving["busy_ms"] / max(1.0, moving["events"]) - still["busy_ms"] / max(1.0, still["events"])
    print(f"| motion's cost per event | | | {cost:.2f} | |")
    per_server = server_cpu / actions * 1000
    per_bare = bare_cpu / actions * 1000
    print("\n| CPU per action | ms |\n|---|---:|")
    print(f"| server process (HTTP, WebSocket, store, redaction, aids, bots) | {per_server:.2f} |")
    print(f"| bare engine + bots, same matches | {per_bare:.2f} |")
    print(f"| ratio | {per_server / per_bare:.1f}x |")
    print(f"| (prompt aids with the wait preview, per human prompt) | {aids_cpu * 1000:.2f} |")
    same = "same" if events == bare_events else f"DIFFERENT ({events} vs {bare_events})"
    print(
        f"\n{args.matches} one-hand matches, {actions} actions ({human} by the socket client), "
        f"{events} events over the socket; event count vs the bare run: {same}"
    )


if __name__ == "__main__":
    main()
