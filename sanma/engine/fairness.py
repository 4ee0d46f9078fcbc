"""Provably fair walls (``sanma-fair-v2``): commitments the server sends before the walls are
played and the checks anyone can run once it reveals them, at the match's end
(``docs/engine.md``).

Under ``sanma-wall-v1`` the match seed decides every wall of the match, so the seed can only
be shown at the match's end.  Commitments at two levels, all opened at the match's end:

* match: ``match_commitment = SHA-256("sanma-fair-v1:{salt}:{seed}")`` at the match's start;
  anyone given the seed and ``salt`` rebuilds every wall with sanma-wall-v1;
* hand: ``hand_commitment = SHA-256("sanma-fair-v1:{hand_salt}:{wall_digest}")`` at the
  hand's start; each deal is checked against its commitment and against every tile that was
  seen during the hand.

Nothing is revealed before the match's end: a deal shown after its hand would tell the
other players how each hand was played, folded ones included (Tenhou too shows its seed
after the game).  ``salt`` is 128 random bits the server draws per match (``new_salt`` in
``server/rooms/fairwalls.py``) and keeps with the seed in ``MatchStarted.salt``: a salt
derived from the seed (``derived_salt``, what sanma-fair-v1 did and what a log without a
salt still uses) is only as hard to guess as the 64-bit seed, so the commitment rested on
64 bits.  ``hand_salt`` is HMAC-SHA256 of the hand index under the salt.  The hash formulas
keep v1's domain tag (``COMMITMENT_TAG``), so commitments sent before v2 still open.
Pure functions: nothing here knows about the server.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sanma.engine.errors import InvalidHand
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    MatchStarted,
    MeldCalled,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.hand import MeldType
from sanma.engine.tiles import TILE_COUNT, Tile
from sanma.engine.visibility import HIDDEN
from sanma.engine.wall import Deal, deal_from_seed

FAIR_VERSION = "sanma-fair-v2"
"""The protocol: what is committed to when, and revealed when (all at the match's end)."""

COMMITMENT_TAG = "sanma-fair-v1"
"""The hash formulas' domain tag, unchanged since v1 (a match that ran across the change
still opens the commitments it was sent)."""

SALT_HEX = 32
"""A salt's length in hex digits (128 bits)."""


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def derived_salt(seed: int) -> str:
    """The salt of a match that has none stored (a log from before v2): HMAC of its seed,
    as sanma-fair-v1 derived it.  Only as secret as the seed."""
    mac = hmac.new(f"{COMMITMENT_TAG}:match-salt".encode(), str(seed).encode(), hashlib.sha256)
    return mac.hexdigest()[:SALT_HEX]


def salt_of(start: MatchStarted) -> str:
    """The match's salt: the random one it recorded, else the one derived from its seed."""
    return start.salt or derived_salt(start.seed)


def hand_salt(salt: str, hand_index: int) -> str:
    """The salt of hand ``hand_index`` (0-based, every hand played) under the match salt."""
    tag = f"{COMMITMENT_TAG}:hand:{hand_index}".encode()
    return hmac.new(salt.encode(), tag, hashlib.sha256).hexdigest()[:SALT_HEX]


def match_commitment(salt: str, seed: int) -> str:
    """What the server sends at the match's start: it binds the seed, hides it."""
    return _sha256(f"{COMMITMENT_TAG}:{salt}:{seed}")


def hand_commitment(salt_of_hand: str, wall_digest: str) -> str:
    """What the server sends at a hand's start, next to the hand's ``wall_digest``."""
    return _sha256(f"{COMMITMENT_TAG}:{salt_of_hand}:{wall_digest}")


# -- the revealed deal ----------------------------------------------------------------------


def deal_to_json(deal: Deal) -> dict[str, Any]:
    """A deal as JSON: physical tile ids (0..107), so a rebuilt wall can be compared tile
    for tile (``web/src/fairness.js`` ``dealFromSeed`` builds the same form)."""
    return {
        "hands": [list(h) for h in deal.hands],
        "live": list(deal.live),
        "replacements": list(deal.replacements),
        "dora_indicators": list(deal.dora_indicators),
        "ura_indicators": list(deal.ura_indicators),
    }


def _tiles(data: dict[str, Any], name: str) -> tuple[Tile, ...]:
    value = data.get(name)
    if not isinstance(value, list) or not all(
        isinstance(t, int) and not isinstance(t, bool) and 0 <= t < TILE_COUNT for t in value
    ):
        raise InvalidHand(f"deal.{name} is a list of tile ids 0..107")
    return tuple(value)


def deal_from_json(data: object) -> Deal:
    """The deal ``deal_to_json`` wrote; ``InvalidHand`` on anything else."""
    if not isinstance(data, dict):
        raise InvalidHand("a deal is a JSON object")
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != 3:
        raise InvalidHand("deal.hands is three lists of tiles")
    h = tuple(_tiles({"h": x}, "h") for x in hands)
    return Deal(
        hands=(h[0], h[1], h[2]),
        live=_tiles(data, "live"),
        replacements=_tiles(data, "replacements"),
        dora_indicators=_tiles(data, "dora_indicators"),
        ura_indicators=_tiles(data, "ura_indicators"),
    )


# -- checks -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one hand: ``ok``, or what did not agree."""

    hand_index: int
    ok: bool
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"hand": k, "result": "ok"|"mismatch", "problems": [...]}``."""
        return {"hand": self.hand_index, "result": "ok" if self.ok else "mismatch", "problems": list(self.problems)}


def check_seen(deal: Deal, events: Iterable[Event]) -> list[str]:
    """Where the tiles seen during one hand (its events from ``HandStarted``, as redacted
    for one viewer or in full) disagree with ``deal``; ``[]``: they all agree.  Hidden
    tiles are skipped; every shown tile must be where the deal put it: the hands, each draw
    in wall order, each discard, call, kita and shown hand from its seat's own tiles, the
    dora and ura indicators."""
    problems: list[str] = []
    pools = [Counter(h) for h in deal.hands]
    live, repl, dora = 0, 0, 1

    def take(seat: int, tile: Tile, what: str) -> None:
        if tile == HIDDEN:
            return
        if pools[seat][tile] <= 0:
            problems.append(f"{what} {tile} of seat {seat} was never dealt or drawn by it")
        else:
            pools[seat][tile] -= 1

    for event in events:
        if isinstance(event, HandStarted):
            for seat in range(3):
                shown = [t for t in event.hands[seat] if t != HIDDEN]
                if shown and tuple(event.hands[seat]) != deal.hands[seat]:
                    problems.append(f"seat {seat}'s starting hand differs")
            if event.dora_indicator != deal.dora_indicators[0]:
                problems.append("the first dora indicator differs")
        elif isinstance(event, TileDrawn):
            wall, i = (deal.replacements, repl) if event.replacement else (deal.live, live)
            if i >= len(wall):
                problems.append("a draw beyond the revealed wall")
                continue
            if event.tile not in (HIDDEN, wall[i]):
                problems.append(f"draw {i} ({'replacement' if event.replacement else 'live'}) differs")
            pools[event.seat][wall[i]] += 1
            repl, live = (repl + 1, live) if event.replacement else (repl, live + 1)
        elif isinstance(event, TileDiscarded | KitaDeclared):
            take(event.seat, event.tile, "discard" if isinstance(event, TileDiscarded) else "kita")
        elif isinstance(event, MeldCalled):
            meld = event.meld
            if meld.type is MeldType.KAKAN:
                own: Sequence[Tile] = [] if meld.added is None else [meld.added]
            else:
                own = list(meld.tiles)
                if meld.called is not None and meld.called in own:
                    own.remove(meld.called)
            for tile in own:
                take(event.seat, tile, "called set tile")
        elif isinstance(event, DoraRevealed):
            if dora >= len(deal.dora_indicators) or event.indicator != deal.dora_indicators[dora]:
                problems.append(f"dora indicator {dora} differs")
            dora += 1
        elif isinstance(event, HandWon):
            if tuple(event.ura_indicators) != deal.ura_indicators[: len(event.ura_indicators)]:
                problems.append("the ura indicators differ")
            for tile in event.hand:
                take(event.seat, tile, "shown tile")
        elif isinstance(event, HandDrawn):
            for seat, hand in enumerate(event.tenpai_hands):
                for tile in hand:
                    take(seat, tile, "shown tile")
    return problems


def check_hand(
    hand_index: int,
    deal: Deal,
    salt_of_hand: str,
    commitment: str,
    wall_digest: str,
    events: Iterable[Event] = (),
) -> HandCheck:
    """Check one revealed hand: its deal hashes to ``wall_digest``, the commitment opens
    with its salt, and the tiles seen in ``events`` agree with the deal."""
    problems = []
    if deal.digest() != wall_digest:
        problems.append("the revealed deal does not hash to the hand's wall_digest")
    if hand_commitment(salt_of_hand, wall_digest) != commitment:
        problems.append("the hand commitment does not open with the revealed salt")
    problems += check_seen(deal, events)
    return HandCheck(hand_index, not problems, tuple(problems))


def check_match(seed: int, salt: str, commitment: str, deals: Sequence[Deal]) -> list[HandCheck]:
    """Check the match's reveal: the commitment opens with ``seed`` and ``salt``, and
    sanma-wall-v1 rebuilds each revealed deal (``deals[k]`` = hand k) from the seed."""
    opened = match_commitment(salt, seed) == commitment
    out = []
    for k, deal in enumerate(deals):
        problems = [] if opened else ["the match commitment does not open with the revealed seed and salt"]
        if deal_from_seed(seed, k) != deal:
            problems.append("sanma-wall-v1 does not rebuild the revealed wall from the seed")
        out.append(HandCheck(k, not problems, tuple(problems)))
    return out


def hand_events(events: Sequence[Event]) -> list[list[Event]]:
    """A match log cut into hands: each list starts with a ``HandStarted``."""
    hands: list[list[Event]] = []
    for event in events:
        if isinstance(event, HandStarted):
            hands.append([event])
        elif hands:
            hands[-1].append(event)
    return hands
