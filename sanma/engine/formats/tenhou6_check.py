"""The replay check: feed a recorded hand through ``Kyoku`` and compare every result with
the log (``sanma replay-check``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sanma.engine.actions import Action, Pass
from sanma.engine.errors import SanmaError
from sanma.engine.events import (
    KyokuEvent,
    MatchEnded,
    MatchStarted,
)
from sanma.engine.formats.tenhou6_codes import RecordedPayment, recorded_payment
from sanma.engine.formats.tenhou6_read import RecordedGame, RecordedHand, RecordedWin
from sanma.engine.kyoku import Kyoku, KyokuResult, WinRecord
from sanma.engine.rules import Rules, preset
from sanma.engine.tiles import SEAT_COUNT, SEATS

# ---------------------------------------------------------------------------
# replay: feed a recorded hand through the engine and compare


@dataclass(frozen=True, slots=True)
class HandCheck:
    """What replaying one recorded hand gave: ``match`` when the engine agrees with the
    log on the outcome, every winner's han, fu and payment, and every seat's deltas;
    ``differences`` says where it does not.  ``events`` are the engine's events and
    ``result`` its result (``None`` when the replay stopped early)."""

    source: str
    index: int
    differences: tuple[str, ...]
    events: tuple[KyokuEvent, ...]
    result: KyokuResult | None
    notes: tuple[str, ...] = ()

    @property
    def match(self) -> bool:
        """No difference at all."""
        return not self.differences

    @property
    def detail(self) -> str:
        """The differences as one line (empty when they match)."""
        return "; ".join(self.differences)


def _feed(kyoku: Kyoku, seat: int, action: Action) -> str | None:
    """Apply the logged action, passing for every awaited seat the log shows did not call.
    Returns a problem when the engine will not take the action."""
    for _ in range(SEAT_COUNT + 1):
        if kyoku.result is not None:
            return f"the engine ended the hand before seat {seat}'s {action}"
        if action in kyoku.legal_actions(seat):
            kyoku.apply(seat, action)
            return None
        if kyoku.phase != "window":
            break
        passers = kyoku.awaiting()
        for other in passers:
            kyoku.apply(other, Pass())
            if kyoku.result is not None:
                break
    legal = ", ".join(str(a) for a in kyoku.legal_actions(seat)) or "nothing"
    return f"the engine refuses seat {seat}'s {action} (legal: {legal})"


def _drain(kyoku: Kyoku) -> str | None:
    """After the log's last action: everyone left in a window passes."""
    while kyoku.result is None:
        if kyoku.phase != "window":
            return f"the log ends but the engine still awaits seats {list(kyoku.awaiting())}"
        passers = kyoku.awaiting()
        for other in passers:
            kyoku.apply(other, Pass())
            if kyoku.result is not None:
                break
    return None


def start_kyoku(hand: RecordedHand, rules: Rules) -> Kyoku:
    """The engine's hand as the log deals it (the check and the learning walker start here)."""
    return Kyoku.start(
        hand.deal,
        rules=rules,
        round_wind=hand.round_wind,
        dealer=hand.dealer,
        honba=hand.honba,
        deposits=hand.deposits,
        scores=hand.scores,
    )


def replay_hand(hand: RecordedHand, rules: Rules, *, source: str = "") -> HandCheck:
    """Replay one recorded hand through ``Kyoku`` under ``rules`` and compare the results."""
    try:
        kyoku = start_kyoku(hand, rules)
    except SanmaError as exc:
        return HandCheck(source, hand.index, (f"the engine cannot deal this hand: {exc}",), (), None)
    problems: list[str] = []
    for step, (seat, action) in enumerate(hand.actions):
        try:
            problem = _feed(kyoku, seat, action)
        except SanmaError as exc:
            problem = f"the engine raised {type(exc).__name__}: {exc}"
        if problem:
            problems.append(f"action {step}: {problem}")
            break
    if not problems:
        problem = _drain(kyoku)
        if problem:
            problems.append(problem)
    events = tuple(e for e in kyoku.events if not isinstance(e, MatchStarted | MatchEnded))
    if kyoku.result is not None and not problems:
        problems += compare_result(hand, kyoku.result)
    elif kyoku.result is None and not problems:
        problems.append("the engine did not finish the hand")
    return HandCheck(source, hand.index, tuple(problems), events, kyoku.result)


def _recorded_base_payment(win: WinRecord, dealer: int) -> RecordedPayment:
    """The engine's payment in the log's terms (no honba)."""
    return recorded_payment(win.score.base, win.seat == win.from_seat, win.seat == dealer)


def compare_result(hand: RecordedHand, result: KyokuResult) -> list[str]:
    """Differences between the engine's result and the log's (empty when they agree)."""
    log = hand.result
    out: list[str] = []
    if result.outcome != log.outcome:
        return [f"outcome: engine {result.outcome} ({result.reason or 'win'}), log {log.outcome} ({log.name})"]
    if log.outcome != "won" and (result.reason or "") != log.reason:
        out.append(f"reason: engine {result.reason}, log {log.reason}")
    engine_wins = {w.seat: w for w in result.wins}
    if set(engine_wins) != {w.seat for w in log.wins}:
        out.append(f"winners: engine {sorted(engine_wins)}, log {sorted(w.seat for w in log.wins)}")
    for lw in log.wins:
        ew = engine_wins.get(lw.seat)
        if ew is None:
            continue
        out += _compare_win(lw, ew, hand.dealer)
    if tuple(result.deltas) != log.deltas:
        out.append(f"deltas: engine {list(result.deltas)}, log {list(log.deltas)}")
    return out


def _compare_win(lw: RecordedWin, ew: WinRecord, dealer: int) -> list[str]:
    out: list[str] = []
    score = ew.score
    who = f"seat {lw.seat}"
    if ew.from_seat != lw.from_seat:
        out.append(f"{who} won from seat {ew.from_seat} in the engine, {lw.from_seat} in the log")
    # Tenhou records no pao when the liable seat dealt the winning tile itself: it pays the
    # whole win either way (its phoenix mjlogs: a daisangen ron from the feeder).
    engine_pao = lw.seat if ew.pao_seat in (None, ew.from_seat) else ew.pao_seat
    if engine_pao != lw.pao_seat:
        out.append(f"{who} pao: engine {engine_pao}, log {lw.pao_seat}")
    if score.yakuman != lw.yakuman:
        out.append(f"{who} yakuman: engine {score.yakuman}, log {lw.yakuman}")
    elif score.han != lw.han:
        out.append(f"{who} han: engine {score.han} {list(score.yaku)}, log {lw.han} {list(lw.yaku)}")
    if lw.fu and score.fu != lw.fu:
        out.append(f"{who} fu: engine {score.fu}, log {lw.fu}")
    payment = _recorded_base_payment(ew, dealer)
    if payment != lw.payment:
        out.append(f"{who} payment: engine {payment}, log {lw.payment} ({lw.points_text})")
    return out


def check_game(game: RecordedGame, rules: Rules) -> list[HandCheck]:
    """Replay every hand of a game.  Besides each hand's own result, the riichi deposits
    the engine took must lead to the next hand's recorded start scores.

    The last hand has no next hand, only the game's final ``sc``.  When the last hand's
    recorded deltas contradict the log's own final ``sc`` (a known converter slip: a riichi
    stick collected on a kita ron, see SOURCES.md) and the engine reproduces the final ``sc``
    exactly, the log's final ``sc`` wins and the hand counts as a match, with a note.
    """
    checks = [replay_hand(hand, rules, source=game.source) for hand in game.hands]
    for i, check in enumerate(checks):
        if check.result is None:
            continue
        hand = game.hands[i]
        paid = check.result.riichi_paid
        end = tuple(hand.scores[s] + check.result.deltas[s] - 1000 * paid[s] for s in SEATS)
        if i + 1 < len(checks):
            if check.match and end != game.hands[i + 1].scores:
                note = f"end scores: engine {list(end)}, next hand starts at {list(game.hands[i + 1].scores)}"
                checks[i] = replace(check, differences=(note,))
            continue
        final = game.final_scores
        only_deltas = bool(check.differences) and all(d.startswith("deltas:") for d in check.differences)
        if final is not None and only_deltas and end == final:
            logged = tuple(hand.scores[s] + hand.result.deltas[s] - 1000 * paid[s] for s in SEATS)
            note = (
                f"log deltas {list(hand.result.deltas)} disagree with the log's final sc {list(final)} "
                f"(they give {list(logged)}); the engine's deltas {list(check.result.deltas)} reproduce the final sc"
            )
            checks[i] = replace(check, differences=(), notes=(note,))
    return checks


def rules_for(game: RecordedGame, name: str | None = None) -> Rules:
    """The preset ``name`` (or the one the log's rule name implies), with the log's red fives."""
    rules = preset(name or game.preset_name)
    if rules.red_fives != game.red_fives:
        rules = rules.with_options(red_fives=game.red_fives)
    return rules
