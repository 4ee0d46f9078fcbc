"""``sanma mjai-bot`` (the bot side of the stream) and ``MjaiPlayer`` (the table side).

The main test seats ``python -m sanma mjai-bot --level <L>`` as a subprocess in a ``Match``
against two in-process bots and plays whole matches: every answer must be legal.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from collections import Counter
from typing import Any

import pytest

from sanma.arena.players import level_available
from sanma.bots.base import Player, ask
from sanma.bots.mjai_player import MjaiPlayer
from sanma.cli.mjai_cmd import MjaiBotSession
from sanma.engine.actions import Action, Discard, Ron, Tsumo
from sanma.engine.events import HandStarted, TileDiscarded
from sanma.engine.formats.mjai import MjaiWriter, parse_answer, write_all
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.rules import PRESETS, Rules
from sanma.engine.shanten import shanten
from sanma.engine.tiles import counts_of_tiles
from sanma.engine.visibility import redact
from tests.fixtures.mjai import match_rules, played

PYTHON = sys.executable


class Greedy(Player):
    """Wins and riichis when it can, else builds the hand (a test stand-in for a bot)."""

    name = "greedy"

    def decide(self, legal: LegalActions) -> Action:
        for action in legal:
            if isinstance(action, Tsumo | Ron) or (isinstance(action, Discard) and action.riichi):
                return action
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:  # build the hand: the discard that leaves the fewest shanten
            melds = len(self.view.melds[self.seat])

            def after(d: Discard) -> int:
                return shanten(counts_of_tiles(t for t in self.view.hand if t != d.tile), melds)

            return min(discards, key=after)
        assert legal.default is not None
        return legal.default


def _seat_players(level: str | None, mjai_seat: int, seed: int, **kw: Any) -> tuple[list[Player], MjaiPlayer]:
    rules = match_rules(seed)
    command = [PYTHON, "-m", "sanma", "mjai-bot", "--level", level or "normal", "--rules", rules.preset]
    if not rules.red_fives:
        command.append("--no-red-fives")
    mjai = MjaiPlayer(mjai_seat, seed, command=command, **kw)
    players: list[Player] = [Greedy(s, seed) for s in range(3)]
    players[mjai_seat] = mjai
    return players, mjai


def _play(players: list[Player], seed: int) -> tuple[Counter[str], int]:
    match = Match(seed, match_rules(seed))
    statuses: Counter[str] = Counter()
    hands = 0

    def tell(events: list[Any]) -> None:
        for event in events:
            for seat, player in enumerate(players):
                player.observe(redact(event, seat))

    tell(match.events)
    while not match.finished:
        seat = match.awaiting()[0]
        answer = ask(players[seat], match.legal_actions(seat))
        if isinstance(players[seat], MjaiPlayer | SessionSeat):
            statuses[answer.status] += 1
        events = match.apply(seat, answer.action)
        hands += sum(isinstance(e, HandStarted) for e in events)
        tell(events)
    for player in players:
        player.close()
    return statuses, hands + 1


@pytest.mark.slow
@pytest.mark.parametrize("level", ["beginner", "normal", "expert"])
def test_mjai_bot_subprocess_plays_whole_matches_legally(level: str) -> None:
    if not level_available(level):
        pytest.skip(f"bot level {level} is not written yet")
    total: Counter[str] = Counter()
    hands = 0
    for seed in range(3):
        players, mjai = _seat_players(level, seed % 3, seed, possible_actions=seed == 2)
        statuses, n = _play(players, seed)
        total += statuses
        hands += n
        assert mjai.counts["ok"] == statuses["ok"] and not (mjai.counts - Counter(ok=mjai.counts["ok"]))
    assert total["ok"] > 50 and set(total) == {"ok"}, total
    assert hands >= 3


class SessionSeat(Player):
    """The table side of ``MjaiPlayer`` with the bot's session in process, checking that
    the session itself (not a lenient table) answers legally."""

    def __init__(self, seat: int, rules: Rules) -> None:
        super().__init__(seat)
        self.session = MjaiBotSession(lambda s: Greedy(s), rules)
        self.writer = MjaiWriter(rules.red_fives)
        self.outbox: list[dict[str, Any]] = []
        self.echoed = False
        self.riichi = 0

    def observe(self, event: Any) -> None:
        super().observe(event)
        lines = self.writer.write(event)
        if isinstance(event, TileDiscarded) and event.seat == self.seat and event.riichi and self.echoed:
            lines = lines[1:]
            self.echoed = False
        self.outbox += lines

    def _send(self, objs: list[dict[str, Any]]) -> dict[str, Any]:
        answer: dict[str, Any] = {}
        for obj in objs:
            answer = self.session.answer_event(json.loads(json.dumps(obj)))
        return answer

    def decide(self, legal: LegalActions) -> Action:
        objs, self.outbox = self.outbox, []
        answer = self._send(objs)
        action = parse_answer(answer, self.seat, self.view)
        if answer["type"] == "reach":
            self.riichi += 1
            self.echoed = True
            action = parse_answer(
                self._send([{"type": "reach", "actor": self.seat}]), self.seat, self.view, riichi=True
            )
        assert isinstance(action, Action)
        return action


def test_session_answers_legally_riichi_included() -> None:
    riichi = 0
    for seed in range(6):
        seat = SessionSeat(seed % 3, match_rules(seed))
        players: list[Player] = [Greedy(s) for s in range(3)]
        players[seed % 3] = seat
        statuses, _ = _play(players, seed)
        riichi += seat.riichi
        assert statuses["ok"] > 10 and set(statuses) == {"ok"}, statuses
        assert seat.session.errors == 0
    assert riichi > 0


def test_one_line_out_per_line_in_and_bad_lines_answer_none() -> None:
    match = played(1)
    lines = [json.dumps(o) for o in write_all([redact(e, 0) for e in match.events], match.rules.red_fives)]
    bad = ["not json", "[]", '{"type": "chi", "actor": 1}', '{"type": "tsumo", "actor": 9, "pai": "1p"}', '"dahai"']
    log = io.StringIO()
    out = io.StringIO()
    session = MjaiBotSession(lambda seat: Greedy(seat), match.rules, log=log)
    session.serve(io.StringIO("\n".join(lines[:40] + bad + lines[40:] + [""]) + "\n"), out)
    answers = [json.loads(a) for a in out.getvalue().splitlines()]
    assert len(answers) == len(lines) + len(bad)
    assert all(a == {"type": "none"} for a in answers[40 : 40 + len(bad)])
    assert session.errors == len(bad) - 1  # the empty batch is no error
    assert log.getvalue().count("sanma mjai-bot:") == len(bad) - 1
    kinds = Counter(a["type"] for a in answers)
    assert kinds["dahai"] > 20 and kinds["none"] > 20


def test_batch_framing_answers_once_per_batch() -> None:
    match = played(4)
    objs = write_all([redact(e, 1) for e in match.events], match.rules.red_fives)
    per_event = MjaiBotSession(lambda seat: Greedy(seat), match.rules)
    singles = [per_event.answer_event(o) for o in objs]
    batched = MjaiBotSession(lambda seat: Greedy(seat), match.rules)
    start = 0
    for i, single in enumerate(singles):
        if single["type"] != "none":  # a decision: the batch is every event up to here
            assert batched.answer_line(json.dumps(objs[start : i + 1])) == single
            start = i + 1
    assert start > 0 and batched.errors == 0


def test_possible_actions_is_preferred() -> None:
    match = played(2)
    objs = write_all([redact(e, 0) for e in match.events], match.rules.red_fives)
    session = MjaiBotSession(lambda seat: Greedy(seat), match.rules)
    for obj in objs:
        if obj["type"] == "tsumo" and obj["actor"] == 0:
            # the table allows only the tsumogiri: the session must not discard anything else
            only = {"type": "dahai", "actor": 0, "pai": obj["pai"]}
            answer = session.answer_event({**obj, "possible_actions": [only]})
            assert answer["type"] == "dahai" and answer["pai"] == obj["pai"], answer
        else:
            session.answer_event(obj)
    assert session.errors == 0


FAKE_BOTS = {
    "garbage": "print('this is not json', flush=True)",
    "illegal": "print(json.dumps({'type': 'ryukyoku', 'actor': 0}), flush=True)",
    "silent": "time.sleep(30)",
    "dies": "sys.exit(0)",
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(FAKE_BOTS))
def test_broken_bots_get_the_default_action(kind: str) -> None:
    script = textwrap.dedent(f"""
        import json, sys, time
        for line in sys.stdin:
            {FAKE_BOTS[kind]}
    """)
    seed = 3
    # Only the silent bot needs the short limit; the others must not be cut off by a slow start.
    mjai = MjaiPlayer(0, seed, command=[PYTHON, "-c", script], timeout_s=0.3 if kind == "silent" else 10.0)
    players: list[Player] = [mjai, Greedy(1), Greedy(2)]
    match = Match(seed, PRESETS["default"].with_options(length="one-hand"))
    for event in match.events:
        for seat, p in enumerate(players):
            p.observe(redact(event, seat))
    statuses: Counter[str] = Counter()
    for _ in range(3 if kind != "silent" else 1):
        if match.finished or match.awaiting()[0] != 0:
            break
        answer = ask(mjai, match.legal_actions(0))
        statuses[answer.status] += 1
        assert answer.action == match.legal_actions(0).default
        for event in match.apply(0, answer.action):
            for seat, p in enumerate(players):
                p.observe(redact(event, seat))
    mjai.close()
    assert statuses and "ok" not in statuses
    want = {"garbage": "malformed", "illegal": "illegal", "silent": "late", "dies": "dead"}[kind]
    assert mjai.counts[want] >= 1, mjai.counts
    assert mjai._proc.poll() is not None


@pytest.mark.slow
def test_cli_runs_and_exits_cleanly_at_end_of_input() -> None:
    if not level_available("normal"):
        pytest.skip("bot level normal is not written yet")
    match = played(5)
    lines = [json.dumps(o) for o in write_all([redact(e, 2) for e in match.events], match.rules.red_fives)]
    lines.append("garbage")
    run = subprocess.run(
        [PYTHON, "-m", "sanma", "mjai-bot", "--level", "normal", "--rules", match.rules.preset]
        + ([] if match.rules.red_fives else ["--no-red-fives"]),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout.splitlines()
    assert len(out) == len(lines)
    assert "garbage" in run.stderr and run.stderr.count("\n") == 1
    unknown = subprocess.run(
        [PYTHON, "-m", "sanma", "mjai-bot", "--level", "grandmaster"], capture_output=True, text=True, check=False
    )
    assert unknown.returncode != 0 and "unknown level" in unknown.stderr


class Kanner(Player):
    """Declares every kan it may (closed, added or open), else lets the drawn tile go."""

    name = "kanner"

    def decide(self, legal: LegalActions) -> Action:
        for action in legal:
            if type(action).__name__ == "Kan":
                return action
        assert legal.default is not None
        return legal.default


def _kan_stream_start(hand: list[str], oya: int = 0) -> list[dict[str, Any]]:
    hidden = ["?"] * 13
    return [
        {"type": "start_game"},
        {
            "type": "start_kyoku", "bakaze": "E", "kyoku": oya + 1, "honba": 0, "kyotaku": 0, "oya": oya,
            "dora_marker": "3s", "scores": [35000, 35000, 35000], "tehais": [hand, hidden, hidden],
        },
    ]  # fmt: skip


HAND = ["1p", "1p", "1p", "4p", "6p", "8p", "2s", "4s", "6s", "8s", "E", "S", "W"]


def test_no_answer_but_none_to_the_kan_dora_after_its_own_closed_kan() -> None:
    stream = [
        *_kan_stream_start(HAND),
        {"type": "tsumo", "actor": 0, "pai": "1p"},
        {"type": "ankan", "actor": 0, "consumed": ["1p", "1p", "1p", "1p"]},
        {"type": "dora", "dora_marker": "7s"},
        {"type": "tsumo", "actor": 0, "pai": "9p"},
        {"type": "dahai", "actor": 0, "pai": "9p", "tsumogiri": True},
    ]
    session = MjaiBotSession(lambda seat: Kanner(seat), PRESETS["tenhou"])
    answers = [session.answer_event(obj)["type"] for obj in stream]
    assert answers == ["none", "none", "ankan", "none", "none", "dahai", "none"]
    assert session.errors == 0


@pytest.mark.parametrize("dora_after", ["tsumo", "nothing"])
def test_a_kan_dora_after_the_replacement_draw_repeats_the_dahai(dora_after: str) -> None:
    """An open kan's dora may arrive after the replacement draw (riichienv sends it there):
    the dahai answers the ``tsumo`` and, framed per event, the ``dora`` after it again (a
    table that waits after the dora reads the dahai; one that waits at the tsumo drops the
    repeat); a batch ending with it gets the dahai (the decision the batch cued)."""
    start = [
        *_kan_stream_start(HAND),
        {"type": "tsumo", "actor": 0, "pai": "9s"},
        {"type": "dahai", "actor": 0, "pai": "9s", "tsumogiri": True},
        {"type": "tsumo", "actor": 1, "pai": "?"},
        {"type": "dahai", "actor": 1, "pai": "1p", "tsumogiri": False},
    ]
    kan = [
        {"type": "daiminkan", "actor": 0, "target": 1, "pai": "1p", "consumed": ["1p", "1p", "1p"]},
        {"type": "tsumo", "actor": 0, "pai": "9p"},
        {"type": "dora", "dora_marker": "7s"},
    ]
    per_event = MjaiBotSession(lambda seat: Kanner(seat), PRESETS["tenhou"])
    answers = [per_event.answer_event(obj) for obj in start + kan]
    assert [a["type"] for a in answers[-4:]] == ["daiminkan", "none", "dahai", "dahai"], answers
    assert answers[-1] == answers[-2]
    batched = MjaiBotSession(lambda seat: Kanner(seat), PRESETS["tenhou"])
    assert batched.answer_line(json.dumps(start))["type"] == "daiminkan"
    tail = kan if dora_after == "tsumo" else kan[:2]
    answer = batched.answer_line(json.dumps(tail))
    assert answer["type"] == "dahai" and answer["pai"] == "9p", answer
    assert per_event.errors == 0 and batched.errors == 0


class Counting(Greedy):
    """Greedy, counting how often it is asked."""

    asked = 0

    def decide(self, legal: LegalActions) -> Action:
        Counting.asked += 1
        return super().decide(legal)


# Seat 0 is dama-ready with a closed 1-9p straight; seat 1 calls an open kan (its dora waits
# until seat 1 acts next), draws the replacement, then declares a kita or an added kan: the
# table writes the waiting dora just after it (mjai-3p.md, "Order within a hand") and only
# then waits for seat 0's answer, a ron on the North or a win robbing the kan.
ROB_KITA = [
    *_kan_stream_start(["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p", "4s", "5s", "6s", "N"], oya=1),
    {"type": "tsumo", "actor": 1, "pai": "?"},
    {"type": "dahai", "actor": 1, "pai": "P", "tsumogiri": False},
    {"type": "tsumo", "actor": 2, "pai": "?"},
    {"type": "dahai", "actor": 2, "pai": "F", "tsumogiri": False},
    {"type": "daiminkan", "actor": 1, "target": 2, "pai": "F", "consumed": ["F", "F", "F"]},
    {"type": "tsumo", "actor": 1, "pai": "?"},
    {"type": "kita", "actor": 1, "pai": "N"},
    {"type": "dora", "dora_marker": "7s"},
]
ROB_KAKAN = [
    *_kan_stream_start(["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p", "1s", "1s", "4s", "W"]),
    {"type": "tsumo", "actor": 0, "pai": "E"},
    {"type": "dahai", "actor": 0, "pai": "E", "tsumogiri": True},
    {"type": "tsumo", "actor": 1, "pai": "?"},
    {"type": "dahai", "actor": 1, "pai": "S", "tsumogiri": False},
    {"type": "tsumo", "actor": 2, "pai": "?"},
    {"type": "dahai", "actor": 2, "pai": "6s", "tsumogiri": False},
    {"type": "pon", "actor": 1, "target": 2, "pai": "6s", "consumed": ["6s", "6s"]},
    {"type": "dahai", "actor": 1, "pai": "C", "tsumogiri": False},
    {"type": "tsumo", "actor": 2, "pai": "?"},
    {"type": "dahai", "actor": 2, "pai": "9s", "tsumogiri": False},
    {"type": "tsumo", "actor": 0, "pai": "5s"},
    {"type": "dahai", "actor": 0, "pai": "W", "tsumogiri": False},  # ready on 3s-6s
    {"type": "tsumo", "actor": 1, "pai": "?"},
    {"type": "dahai", "actor": 1, "pai": "P", "tsumogiri": False},
    {"type": "tsumo", "actor": 2, "pai": "?"},
    {"type": "dahai", "actor": 2, "pai": "F", "tsumogiri": False},
    {"type": "daiminkan", "actor": 1, "target": 2, "pai": "F", "consumed": ["F", "F", "F"]},
    {"type": "tsumo", "actor": 1, "pai": "?"},
    {"type": "kakan", "actor": 1, "pai": "6s", "consumed": ["6s", "6s", "6s"]},
    {"type": "dora", "dora_marker": "7s"},
]
ROBS = {"kita": ROB_KITA, "kakan": ROB_KAKAN}


@pytest.mark.parametrize("cue", sorted(ROBS))
def test_the_win_on_a_kita_or_kakan_is_answered_again_at_the_dora_after_it(cue: str) -> None:
    """Framed per event the table reads the answer to the ``dora``, the last line before it
    waits: it must be the win, the same answer the kita or kakan got, and the bot is asked
    once.  A batch holding both gets the win once."""
    stream = ROBS[cue]
    per_event = MjaiBotSession(lambda seat: Counting(seat), PRESETS["tenhou"])
    answers = [per_event.answer_event(obj) for obj in stream[:-1]]
    asked = Counting.asked
    answers.append(per_event.answer_event(stream[-1]))
    assert Counting.asked == asked  # the repeat asks the bot nothing
    win = {"type": "hora", "actor": 0, "target": 1, "pai": "N" if cue == "kita" else "6s"}
    assert answers[-2] == answers[-1] == win
    batched = MjaiBotSession(lambda seat: Counting(seat), PRESETS["tenhou"])
    assert batched.answer_line(json.dumps(stream[:-2]))["type"] != "hora"
    assert batched.answer_line(json.dumps(stream[-2:])) == win
    assert per_event.errors == 0 and batched.errors == 0


@pytest.mark.parametrize("cue", sorted(ROBS))
def test_cli_answers_the_win_at_the_dora_after_a_kita_or_kakan(cue: str) -> None:
    """The real process: the last line it writes (the answer to the ``dora``) is the win."""
    lines = [json.dumps(obj) for obj in ROBS[cue]]
    run = subprocess.run(
        [PYTHON, "-m", "sanma", "mjai-bot", "--level", "normal", "--rules", "tenhou"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr
    out = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(out) == len(lines)
    assert out[-2]["type"] == out[-1]["type"] == "hora" and out[-1]["actor"] == 0, out[-2:]
