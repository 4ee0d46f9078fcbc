"""``sanma demo``: three bots play a match, printed to the terminal.

The players are the registry's Expert bots (``sanma.bots.registry``), each seeded from the
match seed as the arena seeds its players, so one seed always gives the same match; the match
is played by the arena's loop (``sanma.arena.duplicate.play_seated``: every bot sees only its
own seat's redacted events, as bots and browsers do on a server).  Expert rather than Normal:
it calls, defends and folds, so the table shows more than a race to the first riichi.  The
table is printed from the full log: each hand's deal, calls, kita, riichi, the results with
yaku, han, fu and points, and the final standings.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from typing import TextIO

from sanma.arena.duplicate import bot_seed, play_seated
from sanma.bots.registry import make_bot
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
from sanma.engine.match import Match, rank
from sanma.engine.rules import MATCH_LENGTHS, Rules
from sanma.engine.tiles import EAST, SEATS, Tile, tiles_to_mpsz

WIND_NAMES = {EAST: "East", EAST + 1: "South", EAST + 2: "West"}
SEAT_NAMES = ("Ayu", "Bima", "Citra")
LEVEL = "expert"  # the registry level of all three players


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


# -- the players ----------------------------------------------------------------------------------


def play_match(seed: int, rules: Rules) -> Match:
    """A whole match between three ``LEVEL`` bots, played by the arena's loop."""
    players = [make_bot(LEVEL, seat, bot_seed(seed, seat)) for seat in SEATS]
    try:
        return play_seated(players, seed, rules).match
    finally:
        for player in players:
            player.close()


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
        for s in SEATS:
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
