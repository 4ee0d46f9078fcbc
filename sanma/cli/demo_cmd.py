"""``sanma demo``: three simple players play a match, printed to the terminal.

Each player sees only its own seat's view (events pass through ``redact``, as they
will for bots and browsers) and plays plainly: it takes every win, declares kita,
pons dragons and its value winds, declares riichi when it can, and otherwise discards
the tile that keeps the shanten lowest, then the ukeire (unseen tiles that improve the
hand) highest.  The table is printed from the full log: each hand's deal, calls, kita,
riichi, the results with yaku, han, fu and points, and the final standings.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from typing import TextIO

from sanma.engine.actions import Action, Discard, Kita, Pass, Pon, Ron, Tsumo
from sanma.engine.events import (
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchEnded,
    MeldCalled,
    TileDiscarded,
)
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match, rank
from sanma.engine.rules import MATCH_LENGTHS, Rules
from sanma.engine.shanten import discard_ukeire
from sanma.engine.tiles import DRAGON_KINDS, EAST, KIND_COUNT, Tile, TileKind, kind_of, seat_wind, tiles_to_mpsz
from sanma.engine.view import SeatView
from sanma.engine.visibility import redact

WIND_NAMES = {EAST: "East", EAST + 1: "South", EAST + 2: "West"}
SEAT_NAMES = ("Ayu", "Bima", "Citra")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sanma demo``."""
    parser.add_argument("--seed", type=int, default=None, help="match seed (default: a random one, printed)")
    parser.add_argument(
        "--length", choices=MATCH_LENGTHS, default="east-south", help="match length (default: east-south)"
    )
    parser.add_argument("--no-red", action="store_true", help="play without red fives")


def run(args: argparse.Namespace) -> int:
    """Play and print one match."""
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    if seed < 0:
        print("sanma demo: --seed must not be negative", file=sys.stderr)
        return 2
    rules = Rules(length=args.length, red_fives=not args.no_red)
    match = play_match(seed, rules)
    print_match(match, sys.stdout)
    return 0


# -- the simple player ---------------------------------------------------------------------------


def choose(view: SeatView, legal: LegalActions) -> Action:
    """The simple player's answer to one prompt, from its own view only."""
    for win in (Tsumo(), Ron()):
        if win in legal:
            return win
    if Kita() in legal:
        return Kita()
    pons = [a for a in legal if isinstance(a, Pon) and _is_value_kind(view, a.kind)]
    if pons:
        return pons[0]
    discards = [a for a in legal if isinstance(a, Discard)]
    if not discards:
        assert legal.default is not None, "a prompt always has a default"
        return Pass() if Pass() in legal else legal.default
    riichi = [a for a in discards if a.riichi]
    return _best_discard(view, riichi or [a for a in discards if not a.riichi])


def _is_value_kind(view: SeatView, kind: TileKind) -> bool:
    assert view.seat is not None
    return kind in DRAGON_KINDS or kind in (seat_wind(view.seat, view.dealer), view.round_wind)


def _best_discard(view: SeatView, discards: Sequence[Discard]) -> Discard:
    assert view.seat is not None
    counts = [0] * KIND_COUNT
    for t in view.hand:
        counts[kind_of(t)] += 1
    options = discard_ukeire(counts, len(view.melds[view.seat]), view.visible_counts())

    def merit(d: Discard) -> tuple[int, int, bool]:
        after, improving = options[kind_of(d.tile)]
        # Lowest shanten, then most ukeire, then keep the drawn tile's twin (tsumogiri).
        return (after, -sum(improving.values()), d.tile != view.drawn)

    return min(discards, key=merit)


def play_match(seed: int, rules: Rules) -> Match:
    """A whole match between three simple players, each fed its own redacted events."""
    match = Match(seed, rules)
    views = [SeatView.fold((redact(e, s) for e in match.events), s) for s in range(3)]
    while not match.finished:
        seat = match.awaiting()[0]
        action = choose(views[seat], match.legal_actions(seat))
        for event in match.apply(seat, action):
            for s in range(3):
                views[s].apply(redact(event, s))
    return match


# -- printing ----------------------------------------------------------------------------------------


def print_match(match: Match, out: TextIO) -> None:
    """The match, hand by hand, then the standings."""
    rules = match.rules
    length = {"one-hand": "one hand", "east": "East round", "east-south": "East-South"}[rules.length]
    red = "red fives" if rules.red_fives else "no red fives"
    out.write(f"Sanma demo - seed {match.seed}, {length}, {red}\n")
    out.write(f"Players: {', '.join(f'{n} (seat {i})' for i, n in enumerate(SEAT_NAMES))}\n")
    printer = _Printer(out, rules.red_fives)
    for event in match.events:
        printer.event(event)


class _Printer:
    def __init__(self, out: TextIO, red_fives: bool) -> None:
        self.out = out
        self.red = red_fives
        self.dealer = 0

    def tiles(self, tiles: Sequence[Tile]) -> str:
        return tiles_to_mpsz(sorted(tiles), self.red)

    def line(self, text: str) -> None:
        self.out.write(text + "\n")

    def event(self, e: Event) -> None:
        if isinstance(e, HandStarted):
            self.hand_started(e)
        elif isinstance(e, MeldCalled):
            via = f" from {SEAT_NAMES[e.meld.from_seat]}" if e.meld.from_seat is not None else ""
            self.line(f"    {SEAT_NAMES[e.seat]}: {e.meld.type.value} {e.meld.notation(self.red)}{via}")
        elif isinstance(e, KitaDeclared):
            self.line(f"    {SEAT_NAMES[e.seat]}: kita")
        elif isinstance(e, TileDiscarded) and e.riichi:
            self.line(f"    {SEAT_NAMES[e.seat]}: riichi, discarding {self.tiles([e.tile])}")
        elif isinstance(e, HandWon):
            self.hand_won(e)
        elif isinstance(e, HandDrawn):
            self.hand_drawn(e)
        elif isinstance(e, HandAborted):
            who = f" declared by {SEAT_NAMES[e.seat]} ({self.tiles(e.hand)})" if e.seat is not None else ""
            self.line(f"  Abortive draw: {e.reason.replace('_', ' ')}{who}")
        elif isinstance(e, MatchEnded):
            self.match_ended(e)

    def hand_started(self, e: HandStarted) -> None:
        self.dealer = e.dealer
        label = f"{WIND_NAMES[e.round_wind]} {e.dealer + 1}"
        extra = f", {e.honba} honba" if e.honba else ""
        extra += f", {e.deposits} riichi deposit(s) on the table" if e.deposits else ""
        self.line("")
        self.line(f"== {label}{extra} - dealer {SEAT_NAMES[e.dealer]}, dora indicator {self.tiles([e.dora_indicator])}")
        for s in range(3):
            self.line(f"  {SEAT_NAMES[s]:<6} {e.scores[s]:>6}  {self.tiles(e.hands[s])}")

    def hand_won(self, e: HandWon) -> None:
        score = e.score
        how = "tsumo" if e.seat == e.from_seat else f"ron from {SEAT_NAMES[e.from_seat]}"
        melds = " ".join(m.notation(self.red) for m in e.melds)
        hand = f"{self.tiles(e.hand)}{' ' + melds if melds else ''} + {self.tiles([e.tile])}"
        self.line(f"  {SEAT_NAMES[e.seat]} wins by {how}: {hand}")
        yaku = ", ".join(f"{name.replace('_', ' ')} {han}" for name, han in score.yaku)
        size = f"yakuman x{score.yakuman}" if score.yakuman else f"{score.han} han {score.fu} fu"
        limit = f" ({score.limit})" if score.limit not in ("none", "yakuman") else ""
        self.line(f"    {yaku} - {size}{limit}, {score.total:,} points")
        if e.ura_indicators:
            self.line(f"    ura indicators: {self.tiles(e.ura_indicators)}")
        self.deltas(e.deltas)

    def hand_drawn(self, e: HandDrawn) -> None:
        tenpai = ", ".join(f"{SEAT_NAMES[s]} ({self.tiles(e.tenpai_hands[s])})" for s in e.tenpai) or "nobody"
        self.line(f"  Exhaustive draw - tenpai: {tenpai}")
        if e.nagashi:
            self.line(f"    nagashi mangan: {', '.join(SEAT_NAMES[s] for s in e.nagashi)}")
        if any(e.deltas):
            self.deltas(e.deltas)

    def deltas(self, deltas: tuple[int, int, int]) -> None:
        self.line("    " + ", ".join(f"{SEAT_NAMES[s]} {d:+,}" for s, d in enumerate(deltas)))

    def match_ended(self, e: MatchEnded) -> None:
        self.line("")
        self.line("== Final standings")
        for seat in rank(e.points):
            place, points, final = e.placements[seat], e.points[seat], e.final_scores[seat]
            self.line(f"  {place}. {SEAT_NAMES[seat]:<6} {points:>7,} points  {final:+.1f}")
