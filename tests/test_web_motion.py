"""Motion, call-outs and sound at the table (issue 11), in Debian's Chromium.

Seeded one-hand matches (tests/fixtures/server.py's first seed, where a bot calls pon;
tests/test_aids.py's, where its tenpai-seeking player reaches a riichi) are played by clicking
while an init script records every call-out the page shows, every animation it starts and every audio
source node it starts.  Checked: the pon and riichi call-outs appear over the caller;
animations run at normal speed, none with ``prefers-reduced-motion: reduce`` and none with
the animations set to Off (instant); sounds start only after the first gesture, and the remembered mute toggle
silences them (no audio node started while muted)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sanma.engine.actions import Discard
from sanma.engine.replay import replay
from sanma.server.codec import action_to_wire, wire_tile
from sanma.server.settings import Settings
from tests.fixtures.aids import AIDS_SEED, eager_choice
from tests.fixtures.browser import ACTIONABLE, start_match
from tests.fixtures.motion import play_hand, recording_page, seen
from tests.fixtures.server import LiveServer, free_port, full_log

if TYPE_CHECKING:  # the browser fixture skips when playwright is missing
    from playwright.sync_api import Browser


@pytest.fixture
def riichi_live(tmp_path: Path) -> Iterator[LiveServer]:
    """tests/test_aids.py's seed: the player reaches a riichi discard (the first seed has none)."""
    settings = Settings(port=free_port(), data_dir=tmp_path / "r", bot_delay_s=0.0, rate_per_s=200.0, rate_burst=400)
    server = LiveServer(settings, seed_source=lambda: AIDS_SEED)
    yield server
    server.stop()


@pytest.mark.slow
def test_call_out_for_the_seeded_pon_and_motion_at_normal_speed(browser: Browser, live: LiveServer) -> None:
    page = recording_page(browser, live)
    start_match(page)
    counts = play_hand(page)
    assert counts.get("hand-end") == 1, counts
    shown = seen(page)
    pons = [c for c in shown["callouts"] if c["kind"] == "pon"]
    assert pons and pons[0]["text"] == "Pon!" and pons[0]["seat"] in (1, 2), shown["callouts"]  # a bot's, over its seat
    assert shown["animations"] > 10  # draws, discards, the call, the panel
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_call_out_for_the_seeded_riichi(browser: Browser, riichi_live: LiveServer) -> None:
    """Played by tests/test_aids.py's tenpai-seeking policy, declaring riichi with the first
    discard that allows it (each choice computed from the stored log)."""
    page = recording_page(browser, riichi_live)
    start_match(page)
    match = str(page.evaluate("() => localStorage.getItem('sanma.match')"))
    declared = False
    for _ in range(200):
        page.mouse.move(2, 2)
        page.wait_for_function(ACTIONABLE, timeout=20_000)
        if page.locator("#overlay .panel").count():
            break
        log = full_log(riichi_live.settings, match)
        state = replay(log)
        legal = state.legal_actions(0)
        choice = action_to_wire(eager_choice(state.kyoku, 0, legal), True)
        riichi = {wire_tile(a.tile, True) for a in legal if isinstance(a, Discard) and a.riichi}
        if choice["type"] == "discard" and riichi and not declared:
            page.click("#actions .action-riichi")
            tile = sorted(riichi)[0] if choice["tile"] not in riichi else choice["tile"]
            page.locator(f".hand.my-turn .hand-tile[data-tile='{tile}']:not(.blocked)").first.click()
            declared = True
            page.wait_for_function("() => window.__seen.callouts.some((c) => c.kind === 'riichi')", timeout=20_000)
            break
        if choice["type"] == "discard":
            page.locator(f".hand.my-turn .hand-tile[data-tile='{choice['tile']}']:not(.blocked)").first.click()
        else:
            page.locator(f"#actions .action-{choice['type']}").first.click()
    assert declared, "no riichi reached on this seed"
    riichi_said = [c for c in seen(page)["callouts"] if c["kind"] == "riichi"]
    assert any(c["seat"] == 0 and c["text"] == "Riichi!" for c in riichi_said), riichi_said  # the player's own
    assert page.locator(".river-me .tile.sideways").count() == 1  # the riichi tile, turned
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_reduced_motion_and_instant_animations_start_no_animation(browser: Browser, live: LiveServer) -> None:
    page = recording_page(browser, live, reduced_motion="reduce")
    start_match(page)
    play_hand(page)
    shown = seen(page)
    assert shown["animations"] == 0, shown
    assert "pon" in {c["kind"] for c in shown["callouts"]}  # still said, only not moved
    page.context.close()

    page = recording_page(browser, live)
    page.add_init_script("localStorage.setItem('sanma.motion', 'instant')")  # the animations' own setting
    page.reload()
    start_match(page)
    play_hand(page, stop_after_discards=4)
    assert seen(page)["animations"] == 0
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_sounds_start_after_a_gesture_and_the_remembered_mute_silences_them(browser: Browser, live: LiveServer) -> None:
    page = recording_page(browser, live)
    start_match(page)  # the clicks on the start screen are the first gestures
    play_hand(page, stop_after_discards=3)
    before_mute = seen(page)["sounds"]
    assert before_mute > 0  # discards, the turn bell
    mute = page.locator("#toggles [data-cmd=mute]")
    assert mute.get_attribute("aria-pressed") == "false"
    mute.click()
    assert page.locator("#toggles [data-cmd=mute]").get_attribute("aria-pressed") == "true"
    muted_at = seen(page)["sounds"]
    play_hand(page, stop_after_discards=3)
    assert seen(page)["sounds"] == muted_at  # muted: not one audio node started
    page.reload()  # remembered
    page.wait_for_selector(".hand-tile")
    assert page.locator("#toggles [data-cmd=mute]").get_attribute("aria-pressed") == "true"
    page.locator("#toggles [data-cmd=mute]").click()
    play_hand(page, stop_after_discards=2)
    assert seen(page)["sounds"] > 0  # on again (a fresh page after the reload)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.slow
def test_no_sound_before_the_first_gesture(browser: Browser, live: LiveServer) -> None:
    """A match resumed on load plays its events without any gesture: it stays silent."""
    page = recording_page(browser, live)
    start_match(page)
    play_hand(page, stop_after_discards=2)
    page.reload()  # a new page: no gesture yet, the match resumes by itself
    page.wait_for_selector(".hand.my-turn .hand-tile")
    assert seen(page)["sounds"] == 0
    page.context.close()
