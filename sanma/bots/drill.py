"""A drill: one of the seat's reviewed discards set again as "what would you discard?".

``position`` folds the match log, event by event as the seat saw it (``visibility.redact``),
up to the event that cued the decision (the review's ``index``), with the same fold the review
used (the seat's ``SeatView``: its table and its legal actions), so the problem shows exactly
what the seat knew then: its own tiles, everything public, never another seat's concealed
tiles, the wall or a later event.  ``judge`` tells whether an answer is the master's discard,
``rest_of_hand`` what the seat saw from the decision to the hand's end.  Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sanma.bots.base import Player
from sanma.engine.actions import Discard
from sanma.engine.errors import InvalidLog
from sanma.engine.events import Event, HandAborted, HandDrawn, HandStarted, HandWon, MatchStarted
from sanma.engine.hand import Meld
from sanma.engine.kyoku import LegalActions
from sanma.engine.tiles import EAST, kind_name, seat_wind, tile_name
from sanma.engine.view import RiverTile, SeatView
from sanma.engine.visibility import redact

if TYPE_CHECKING:
    from sanma.bots.coach import Reason

ENDS = (HandWon, HandDrawn, HandAborted)


@dataclass(frozen=True, slots=True)
class Position:
    """The table as ``seat`` saw it at the decision, tiles in mpsz (``as_dict`` is the wire
    form).  Per-seat tuples are indexed by seat; ``legal`` are the discards the seat could make,
    each tile named once (a red five apart from the plain ones when the hand holds both)."""

    seat: int
    hand: str  # e.g. "E2-0": round wind, dealer seat + 1, honba
    round_wind: str
    dealer: int
    honba: int
    deposits: int
    winds: tuple[str, str, str]
    scores: tuple[int, int, int]
    tiles: tuple[str, ...]  # the seat's concealed tiles, sorted, without the drawn one
    drawn: str | None
    melds: tuple[tuple[dict[str, Any], ...], ...]
    kita: tuple[tuple[str, ...], ...]
    rivers: tuple[tuple[dict[str, Any], ...], ...]
    riichi: tuple[bool, bool, bool]
    hand_sizes: tuple[int, int, int]
    dora_indicators: tuple[str, ...]
    live_left: int
    legal: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "hand": self.hand,
            "round_wind": self.round_wind,
            "dealer": self.dealer,
            "honba": self.honba,
            "deposits": self.deposits,
            "winds": list(self.winds),
            "scores": list(self.scores),
            "tiles": list(self.tiles),
            "drawn": self.drawn,
            "melds": [list(m) for m in self.melds],
            "kita": [list(k) for k in self.kita],
            "rivers": [list(r) for r in self.rivers],
            "riichi": list(self.riichi),
            "hand_sizes": list(self.hand_sizes),
            "dora_indicators": list(self.dora_indicators),
            "live_left": self.live_left,
            "legal": list(self.legal),
        }


def fold_to(events: Sequence[Event], seat: int, index: int, watcher: Player | None = None) -> SeatView:
    """The seat's view (its table and its legality) of ``events[: index + 1]``, each redacted
    for it; told to ``watcher`` when given, and then the view is the watcher's."""
    if seat not in (0, 1, 2):
        raise InvalidLog(f"a seat is 0, 1 or 2, not {seat}")
    if not events or not isinstance(events[0], MatchStarted):
        raise InvalidLog("a match log starts with MatchStarted")
    if not 0 <= index < len(events):
        raise InvalidLog(f"the log has no event {index}")
    if watcher is None:
        return SeatView.fold((redact(e, seat) for e in events[: index + 1]), seat)
    for event in events[: index + 1]:
        watcher.observe(redact(event, seat))
    return watcher.view


def position(events: Sequence[Event], seat: int, index: int) -> Position:
    """The position of the decision cued by ``events[index]``, as ``seat`` saw it."""
    view = fold_to(events, seat, index)
    red = _red(view)
    legal = view.legal()
    discards = sorted({a.tile for a in legal if isinstance(a, Discard)})
    names = tuple(dict.fromkeys(tile_name(t, red) for t in discards))
    if not names:
        raise InvalidLog(f"event {index} does not ask seat {seat} for a discard")
    drawn = view.drawn
    kept = sorted(t for t in view.hand if t != drawn)
    wind = "E" if view.round_wind == EAST else "S"
    return Position(
        seat=seat,
        hand=f"{wind}{view.dealer + 1}-{view.honba}",
        round_wind=kind_name(view.round_wind),
        dealer=view.dealer,
        honba=view.honba,
        deposits=view.deposits,
        winds=(_wind(0, view), _wind(1, view), _wind(2, view)),
        scores=(view.scores[0], view.scores[1], view.scores[2]),
        tiles=tuple(tile_name(t, red) for t in kept),
        drawn=None if drawn is None else tile_name(drawn, red),
        melds=tuple(tuple(_meld(m, red) for m in view.melds[s]) for s in range(3)),
        kita=tuple(tuple(tile_name(t, red) for t in view.kita[s]) for s in range(3)),
        rivers=tuple(tuple(_river(r, red) for r in view.rivers[s]) for s in range(3)),
        riichi=(view.riichi[0], view.riichi[1], view.riichi[2]),
        hand_sizes=(view.hand_sizes[0], view.hand_sizes[1], view.hand_sizes[2]),
        dora_indicators=tuple(tile_name(t, red) for t in view.dora_indicators),
        live_left=view.live_left,
        legal=names,
    )


def _red(view: SeatView) -> bool:
    return view.rules.red_fives if view.rules is not None else True


def _wind(seat: int, view: SeatView) -> str:
    return kind_name(seat_wind(seat, view.dealer))


def _meld(meld: Meld, red: bool) -> dict[str, Any]:
    return {
        "type": meld.type.value,
        "tiles": [tile_name(t, red) for t in meld.tiles],
        "called": None if meld.called is None else tile_name(meld.called, red),
        "from_seat": meld.from_seat,
        "added": None if meld.added is None else tile_name(meld.added, red),
    }


def _river(r: RiverTile, red: bool) -> dict[str, Any]:
    return {"tile": tile_name(r.tile, red), "tsumogiri": r.tsumogiri, "riichi": r.riichi, "called": r.called}


def discarded_tile(action: str) -> str | None:
    """The tile of a review's discard (``"discard 5p"``, ``"riichi 0p"``), else ``None``.

    >>> discarded_tile("riichi 0p"), discarded_tile("pon 7s")
    ('0p', None)
    """
    verb, _, tile = action.partition(" ")
    return tile if verb in ("discard", "riichi") and tile else None


def answer_tile(legal: Sequence[str], answer: str) -> str | None:
    """``answer`` as one of the ``legal`` discards: itself, or the other form of a five (red or
    plain) when the hand offers only that one; ``None``: not a legal discard.

    >>> answer_tile(["5p", "7s"], "0p"), answer_tile(["0p", "5p"], "0p"), answer_tile(["7s"], "1m")
    ('5p', '0p', None)
    """
    if answer in legal:
        return answer
    other = _other_five(answer)
    return other if other is not None and other in legal else None


def _other_five(name: str) -> str | None:
    if len(name) == 2 and name[1] in "mps" and name[0] in "05":
        return ("5" if name[0] == "0" else "0") + name[1]
    return None


def judge(legal: Sequence[str], answer: str, master: str) -> tuple[str, bool] | None:
    """``(the answer as a legal discard, whether it is the master's discard)``; ``None`` when the
    answer is not a legal discard.  ``master`` is the review's action (``"riichi 3m"``): its
    tile is what counts, the riichi is the master's plan for it."""
    tile = answer_tile(legal, answer)
    if tile is None:
        return None
    wanted = discarded_tile(master)
    wanted = None if wanted is None else answer_tile(legal, wanted)
    return tile, tile == wanted


def rest_of_hand(events: Sequence[Event], seat: int, index: int) -> tuple[list[Event], int]:
    """The hand of the decision as ``seat`` saw it, for a replay from the decision on: the
    match's start, then the hand from its deal to its end (a double ron's both wins), each event
    redacted for the seat; and the position in that list of the cueing event."""
    start = max(i for i in range(index + 1) if isinstance(events[i], HandStarted))
    end = index + 1
    while end < len(events) and not isinstance(events[end], ENDS):
        end += 1
    while end + 1 < len(events) and isinstance(events[end + 1], ENDS):
        end += 1
    hand = [events[0], *events[start : end + 1]]
    return [redact(e, seat) for e in hand], index - start + 1


MIN_LOSS: Final = 0.05
"""The smallest loss (expected final placement points given up) that makes a mistake a drill:
below it the two discards are about as good, and "the master's choice" would be a coin toss."""


def is_problem(mistake: dict[str, Any]) -> bool:
    """Whether a review's decision (``Decision.as_dict()``) makes a "what would you discard?"
    drill: a priced discard that gave up at least ``MIN_LOSS``, where the master discards
    another kind of tile (not the same tile with or without riichi, not a red five for a plain
    one).

    >>> is_problem({"choice": "discard 6s", "master": "riichi 2z", "loss": 0.4})
    True
    >>> is_problem({"choice": "discard 5p", "master": "discard 0p", "loss": 0.4})
    False
    """
    loss = mistake.get("loss")
    mine, master = discarded_tile(str(mistake.get("choice", ""))), discarded_tile(str(mistake.get("master", "")))
    if loss is None or loss < MIN_LOSS or mine is None or master is None:
        return False
    return _plain(mine) != _plain(master)


def _plain(name: str) -> str:
    return "5" + name[1] if name[0] == "0" else name


class _Onlooker(Player):
    """Watches the seat's events for the coach (its view and the table order of discards, which
    genbutsu needs); it never plays."""

    def decide(self, legal: LegalActions) -> Discard:
        raise NotImplementedError("an onlooker never plays")


def reasons(events: Sequence[Event], seat: int, index: int, actions: Sequence[str]) -> list[Reason | None]:
    """The coach's reasons (``coach.reasons_for``: speed, safety, value) for each of the review's
    discards ``actions`` (``"riichi 2z"``) at the decision, from what the seat saw; ``None``
    for one that is not a discard of the position."""
    from sanma.bots.coach import reasons_for  # the coach brings the master with it: loaded on first use

    watcher = _Onlooker(seat)
    view = fold_to(events, seat, index, watcher)
    red = _red(view)
    discards = [a for a in view.legal() if isinstance(a, Discard)]
    out: list[Reason | None] = []
    for text in actions:
        tile, riichi = discarded_tile(text), text.startswith("riichi ")
        named = [a for a in discards if tile_name(a.tile, red) == tile]
        found = next((a for a in named if a.riichi == riichi), named[0] if named else None)
        out.append(None if found is None else reasons_for(watcher, found))
    return out
