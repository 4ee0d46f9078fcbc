"""The seat clock (``sanma/server/rooms/clock.py``): times in, decisions out; no event loop,
no sleeping, no monotonic clock."""

from __future__ import annotations

import pytest

from sanma.server.protocol import Timer
from sanma.server.rooms.clock import SeatClock, TurnTimers, first_deadline

TIMERS = TurnTimers(turn_s=10.0, bank_s=20.0, timeouts_to_auto=2, away_grace_s=5.0)


def clock(*, pauses: bool = False, timers: TurnTimers | None = TIMERS, now: float = 0.0) -> SeatClock:
    return SeatClock(timers, pauses_when_away=pauses, now=now)


def deadline(c: SeatClock, *, connected: bool = True, auto: bool = False, delay: float = 1.5) -> float | None:
    return c.deadline(connected=connected, auto=auto, standin_delay_s=delay)


def test_a_prompt_leaves_the_turn_then_the_bank():
    c = clock()
    c.ask(100.0)
    assert c.left(100.0) == Timer(10.0, 20.0)
    assert c.left(104.0) == Timer(6.0, 20.0)
    assert c.left(115.0) == Timer(0.0, 15.0)  # 5 s into the bank
    assert c.left(200.0) == Timer(0.0, 0.0)  # never below nothing
    assert c.left(99.0) == Timer(10.0, 20.0)  # a clock that went back counts no time
    assert deadline(c) == 130.0  # turn + bank


def test_an_answer_late_into_the_bank_spends_that_much_of_it():
    c = clock()
    c.ask(0.0)
    c.answered(17.0)  # 7 s past the turn
    assert c.bank_s == 13.0 and c.asked_at is None and c.left(17.0) is None
    c.ask(20.0)
    c.answered(25.0)  # within the turn: the bank stays
    assert c.bank_s == 13.0
    c.ask(30.0)
    assert deadline(c) == 30.0 + 10.0 + 13.0
    c.answered(90.0)  # past everything (the room expires it first; never negative)
    assert c.bank_s == 0.0


def test_each_hand_fills_the_bank_again():
    c = clock()
    c.ask(0.0)
    c.answered(25.0)
    assert c.bank_s == 5.0
    c.new_hand()
    assert c.bank_s == 20.0


def test_timeouts_in_a_row_hand_the_seat_to_autoplay_and_an_answer_resets_the_run():
    c = clock()
    c.ask(0.0)
    assert c.timed_out() is False  # the first timeout: the bank is spent, no autoplay yet
    assert c.bank_s == 0.0 and c.timeouts == 1 and c.asked_at is None
    c.ask(40.0)
    c.answered(41.0)
    assert c.timeouts == 0
    c.ask(50.0)
    assert c.timed_out() is False
    c.ask(60.0)
    assert c.timed_out() is True  # two in a row


def test_on_autoplay_the_standin_answers_after_the_bots_delay():
    c = clock()
    c.ask(50.0)
    assert deadline(c, auto=True, delay=1.5) == 51.5
    assert deadline(c, auto=True, connected=False, delay=0.0) == 50.0


def test_an_away_seat_gets_its_default_after_the_grace_from_the_prompt_or_from_leaving():
    c = clock(now=0.0)
    c.left_table(3.0)
    c.ask(10.0)  # asked after it left: the grace counts from the prompt
    assert deadline(c, connected=False) == 15.0
    c.left_table(12.0)  # (it came back and left again) from when it left
    assert deadline(c, connected=False) == 17.0
    c.left_table(38.0)  # the grace never lengthens the turn and the bank
    assert deadline(c, connected=False) == 40.0


def test_where_the_table_waits_an_away_seat_has_no_deadline_and_its_turn_starts_again():
    c = clock(pauses=True)
    c.ask(0.0)
    assert deadline(c) == 30.0
    c.left_table(4.0)
    assert deadline(c, connected=False) is None  # the clock stands still
    assert c.back(60.0, connected_before=False) is True  # back: a full turn from now
    assert c.left(60.0) == Timer(10.0, 20.0) and deadline(c) == 90.0
    assert c.back(61.0, connected_before=True) is False  # a second socket changes nothing
    assert c.asked_at == 60.0


def test_a_return_ends_a_run_of_timeouts_and_moves_no_running_clock():
    c = clock()
    c.ask(0.0)
    c.timed_out()
    c.ask(40.0)
    assert c.back(45.0, connected_before=False) is False
    assert c.timeouts == 0 and c.asked_at == 40.0


def test_without_timers_nothing_ever_expires():
    c = clock(timers=None)
    c.ask(0.0)
    assert c.left(1000.0) is None
    assert deadline(c) is None and deadline(c, connected=False) is None and deadline(c, auto=True) is None
    c.new_hand()
    c.answered(5.0)
    assert c.bank_s == 0.0 and c.timeouts == 0


def test_no_prompt_no_deadline():
    c = clock()
    assert deadline(c) is None and c.left(0.0) is None
    c.ask(1.0)
    c.close()
    assert deadline(c) is None


def test_the_first_deadline_and_how_long_to_wait_for_it():
    assert first_deadline({}, 5.0) is None
    assert first_deadline({1: 9.0, 0: 7.0}, 5.0) == (0, 2.0)
    assert first_deadline({2: 3.0}, 5.0) == (2, 0.0)  # past: at once


def test_timers_keep_their_stored_form():
    assert TurnTimers.from_json(TIMERS.to_json()) == TIMERS
    with pytest.raises(KeyError):
        TurnTimers.from_json({"turn_s": 1})
