"""The coach: at a seat's decision, the master's top three choices, each with one short
reason in plain facts (speed, safety, value), all from what the seat itself sees.

* **which choices**: the first is exactly the master's answer (``LearnedMaster.decide``, the
  same bot ``sanma mjai-bot --level master`` plays); the next two follow the master's own
  prices (``last_values``) when its program priced the decision, else the policy's
  probabilities (``last_probabilities``: discards, riichi, calls, pass and kita alike);
* **speed**: the shanten a discard leaves and the tiles that would improve the hand (kinds
  and unseen copies), or the waits and their unseen copies when it leaves tenpai; for a pon,
  the same after the pon and its best discard; for a pass in a call window, the hand's own;
* **safety** (only against an opponent in riichi or likely tenpai): genbutsu (the kind is in
  that player's river, or was let go after its riichi or since its last discard), suji (every
  two-sided wait on it is killed by a genbutsu), a honor (or 1m/9m, which make no sequences
  in sanma) with the copies the seat can see, or dangerous;
* **value**: dora (incl. red fives and kita) the hand keeps or the tile gives up, a value
  pair broken, riichi declared, and for a tenpai hand whether its waits win without riichi.

"Unseen" copies are the four copies less the seat's own tiles and every tile face up
(rivers, melds, kita, dora indicators), the discarded tile included: the Expert's count.

Pure: reads the bot's view and discard order, computes, returns small frozen values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sanma.bots.base import Player
from sanma.bots.defence import safe_kinds, tenpai_chance
from sanma.bots.ev import after_pon, called_tile, closest, priced_as
from sanma.bots.expert import PRESSURE
from sanma.bots.heuristics import Knowledge, dora_in_hand, know, own_counts, tenpai_after
from sanma.bots.master import LearnedMaster
from sanma.engine.actions import Action, Discard, Kita, Pass, Pon
from sanma.engine.kyoku import LegalActions
from sanma.engine.shanten import discard_ukeire, shanten, ukeire, waits
from sanma.engine.tiles import EAST, NORTH, P1, S1, TileKind, is_red, kind_name, kind_of, tile_name

SafetyClass = Literal["genbutsu", "suji", "honor", "dangerous"]
CHOICES = 3  # how many choices the coach shows


@dataclass(frozen=True, slots=True)
class Speed:
    """What a discard leaves: ``shanten`` after it; ``kinds`` and ``tiles``: the improving
    kinds with an unseen copy and their unseen copies, or at tenpai the waits (``waits``,
    mpsz kinds) and their unseen copies."""

    shanten: int
    kinds: int
    tiles: int
    waits: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"shanten": self.shanten, "kinds": self.kinds, "tiles": self.tiles, "waits": list(self.waits)}


@dataclass(frozen=True, slots=True)
class Safety:
    """How safe the discarded kind is against the threatening opponent ``seat``; ``seen``:
    copies of the kind the seat can see (its own and face up), told for honors."""

    seat: int
    kind: SafetyClass
    seen: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "class": self.kind, "seen": self.seen}


@dataclass(frozen=True, slots=True)
class Note:
    """One fact about value: ``dora_kept`` (n dora han left in hand, kita included),
    ``dora_lost`` (n han the discarded tile carried), ``pair_lost`` (a value pair broken),
    ``riichi`` (declared; n = average ron points of its waits), ``yaku`` (tenpai with a yaku
    on every wait without riichi; n = average ron points), ``no_yaku`` (tenpai that wins only
    by riichi or a closed tsumo), ``kita`` (a North set aside: one more dora)."""

    code: str
    n: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "n": self.n}


@dataclass(frozen=True, slots=True)
class Reason:
    """One choice and its reason: ``action`` as the wire names it (``"5p"``, ``"riichi 0p"``,
    ``"kita"``, ``"pass"``, ``"pon 7s"``...), ``tile`` the discarded tile (mpsz) or ``None``."""

    action: str
    tile: str | None
    riichi: bool
    speed: Speed | None
    safety: tuple[Safety, ...]
    value: tuple[Note, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "tile": self.tile,
            "riichi": self.riichi,
            "speed": None if self.speed is None else self.speed.as_dict(),
            "safety": [s.as_dict() for s in self.safety],
            "value": [n.as_dict() for n in self.value],
        }


@dataclass(frozen=True, slots=True)
class Advice:
    """The coach's answer to one decision: the hand's shanten (after its best discard when
    it holds a tile too many) and up to ``CHOICES`` reasons, the master's choice first;
    ``priced``: the order of the others comes from the master's prices (else the policy's)."""

    shanten: int
    choices: tuple[Reason, ...]
    priced: bool
    actions: tuple[Action, ...]  # the choices' actions, in the same order (not on the wire)

    def as_dict(self) -> dict[str, Any]:
        return {"shanten": self.shanten, "priced": self.priced, "choices": [c.as_dict() for c in self.choices]}


# -- the reasons -------------------------------------------------------------------------------


def threatening(bot: Player) -> list[int]:
    """Opponents in riichi or likely enough tenpai that the Expert weighs danger."""
    seat = bot.seat
    return [s for s in range(3) if s != seat and (bot.view.riichi[s] or tenpai_chance(bot, s) >= PRESSURE)]


def safety_class(k: Knowledge, kind: TileKind, safe: frozenset[TileKind]) -> SafetyClass:
    """Genbutsu, suji, honor (1m/9m too: no sequences in sanma) or dangerous, for ``kind``
    against an opponent who cannot ron the ``safe`` kinds."""
    if kind in safe:
        return "genbutsu"
    if kind < P1 or kind >= EAST:
        return "honor"
    base = P1 if kind < S1 else S1
    n = kind - base  # 0..8
    sides = [base + n + d for d in (-3, 3) if 0 <= n + d <= 8]
    return "suji" if all(side in safe for side in sides) else "dangerous"


def speed_after(k: Knowledge, kind: TileKind) -> Speed:
    """Shanten and improving tiles (or waits) after discarding one ``kind``."""
    return _after_discard(k, kind, discard_ukeire(k.counts, k.meld_count, k.visible)[kind])


def _after_discard(k: Knowledge, kind: TileKind, after: tuple[int, dict[TileKind, int]]) -> Speed:
    """``speed_after`` from the discard's row of ``discard_ukeire`` (shanten, improving)."""
    shanten_after, improving = after
    counts = k.counts[:]
    counts[kind] -= 1
    own = own_counts(k)
    own[kind] -= 1
    return _speed(k, counts, own, shanten_after, improving, kind)


def speed_now(k: Knowledge) -> Speed:
    """Shanten and improving tiles (or waits) of the hand as it stands (a pass in a window)."""
    improving = ukeire(k.counts, k.meld_count, k.visible)
    return _speed(k, k.counts, own_counts(k), shanten(k.counts, k.meld_count), improving, None)


def speed_after_pon(k: Knowledge, pon: Pon) -> Speed | None:
    """The speed a pon leaves: after it and its best discard (not the called kind), the
    fewest shanten, then the most improving tiles; ``None`` when the offer is not found."""
    called = called_tile(k)
    if called is None:
        return None
    hypo = after_pon(k, pon, called)
    table = discard_ukeire(hypo.counts, hypo.meld_count, hypo.visible)  # every discard at once
    speeds = [_after_discard(hypo, d, after) for d, after in table.items() if d != pon.kind]
    return min(speeds, key=lambda sp: (sp.shanten, -sp.tiles, -sp.kinds), default=None)


def _speed(
    k: Knowledge, counts: list[int], own: list[int], s: int, improving: dict[TileKind, int], gone: TileKind | None
) -> Speed:
    """``Speed`` of the 13-tile ``counts`` (``s`` shanten); ``gone``: a kind just discarded,
    face up now (``k.visible`` does not count it yet)."""
    if s == 0:
        kinds = waits(counts, k.meld_count, own)
        live = {w: max(0, 4 - counts[w] - k.visible[w] - (w == gone)) for w in kinds}
        return Speed(0, sum(1 for n in live.values() if n), sum(live.values()), tuple(kind_name(w) for w in kinds))
    return Speed(s, sum(1 for n in improving.values() if n), sum(improving.values()))


def value_notes(k: Knowledge, discard: Discard) -> tuple[Note, ...]:
    """What the discard keeps or gives up in value (see ``Note``)."""
    kind = kind_of(discard.tile)
    lost = k.dora[kind] + (1 if is_red(discard.tile, k.red_fives) else 0)
    notes: list[Note] = []
    if lost:
        notes.append(Note("dora_lost", lost))
    kept = dora_in_hand(k) - lost
    if kept:
        notes.append(Note("dora_kept", kept))
    if kind in k.value_kinds and k.counts[kind] == 2:
        notes.append(Note("pair_lost"))
    hand = list(k.hand)
    hand.remove(discard.tile)
    t = tenpai_after(k, hand, own_counts(k)) if k.view.rules is not None else None
    if discard.riichi:
        notes.append(Note("riichi", round(t.riichi) if t is not None else 0))
    elif t is not None and t.live:
        if t.dama_yaku_share >= 1.0:
            notes.append(Note("yaku", round(t.dama)))
        elif k.closed:
            notes.append(Note("no_yaku"))
    return tuple(notes)


def reasons_for(bot: Player, action: Action) -> Reason:
    """The reason for ``action`` at the seat's decision, from what ``bot`` has seen.

    ``bot`` is any ``Player`` that observed the seat's own redacted events up to the
    decision (e.g. the ``LearnedMaster`` whose answer is the master's choice): its view and its
    table order of discards (which genbutsu needs: a tile let go after a riichi).  A discard
    gets speed, safety (against each threatening opponent, none when nobody threatens) and
    value; a pon the speed after it and its best discard; a pass in a window the speed of the
    hand as it stands; a kita its value note; a kan only its name.
    Stable for other modules (the drills reuse it).
    """
    return _reason(bot, know(bot.view), action)


def _reason(bot: Player, k: Knowledge, action: Action) -> Reason:
    """``reasons_for`` with the seat's knowledge already folded (``advise`` folds it once)."""
    red = k.red_fives
    if isinstance(action, Discard):
        kind = kind_of(action.tile)
        safety = tuple(
            Safety(s, cls, k.seen_by_me(kind) if cls == "honor" else 0)
            for s in threatening(bot)
            for cls in (safety_class(k, kind, safe_kinds(bot, s)),)
        )
        name = tile_name(action.tile, red)
        label = f"riichi {name}" if action.riichi else name
        return Reason(label, name, action.riichi, speed_after(k, kind), safety, value_notes(k, action))
    if isinstance(action, Kita):
        return Reason("kita", None, False, None, (), (Note("kita", 1 + k.dora[NORTH]),))
    if isinstance(action, Pon):
        return Reason(_action_name(action), None, False, speed_after_pon(k, action), (), ())
    if isinstance(action, Pass) and sum(k.counts) + 3 * k.meld_count == 13:
        return Reason("pass", None, False, speed_now(k), (), ())
    return Reason(_action_name(action), None, False, None, (), ())


def _action_name(action: Action) -> str:
    if isinstance(action, Pass):
        return "pass"
    kind = getattr(action, "kind", None)
    name = type(action).__name__.lower()
    return name if kind is None else f"{name} {kind_name(kind)}"


# -- the advice --------------------------------------------------------------------------------


def ranked(bot: LearnedMaster, legal: LegalActions) -> tuple[list[Action], bool]:
    """The master's answer first, then the others best first: by the master's prices when it
    priced the decision, else by the policy's probabilities; ``True`` when priced."""
    choice = bot.decide(legal)
    values = dict(bot.last_values)
    if values:
        mine = priced_as(choice, values)
        rest = sorted((a for a in values if a != mine), key=lambda a: -values[a])
        return _distinct([choice, *rest]), True
    odds = bot.last_probabilities
    return _distinct([choice, *sorted(odds, key=lambda a: -odds[a])]), False


def _choice(action: Action) -> object:
    """What makes an action a choice: two discards of one kind, riichi alike, are one."""
    return (kind_of(action.tile), action.riichi) if isinstance(action, Discard) else action


def _distinct(actions: list[Action]) -> list[Action]:
    """Each choice once."""
    seen: set[object] = set()
    out: list[Action] = []
    for a in actions:
        key = _choice(a)
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def advise(bot: LearnedMaster, legal: LegalActions) -> Advice:
    """The coach's advice at ``bot``'s seat for ``legal`` (``bot`` has observed the seat's
    redacted events up to this decision)."""
    actions, priced = ranked(bot, legal)
    k = know(bot.view)
    top = tuple(actions[:CHOICES])
    return Advice(closest(k), tuple(_reason(bot, k, a) for a in top), priced, top)


def same_choice(a: Action, b: Action) -> bool:
    """Whether two actions are one choice (discards of one kind, riichi alike, are)."""
    return _choice(a) == _choice(b)
