"""Events and actions <-> JSON, in two forms.

* The store form (``event_to_store`` / ``event_from_store``) is lossless: physical tile
  ids as integers, every field, so ``replay`` can rebuild a match from the stored log.
* The wire form (``event_to_wire``, ``action_to_wire``) is what a browser sees: tiles in
  mpsz (``"0p"`` a red five, ``"?"`` a hidden tile), kinds as ``"5p"``.  It is only ever
  made from events already passed through ``visibility.redact``.
"""

from __future__ import annotations

import dataclasses
import re
from enum import Enum
from typing import Any, Final

from sanma.engine import events as ev
from sanma.engine.actions import Action, Discard, Kan, Kita, NineTerminals, Pass, Pon, Ron, Tsumo
from sanma.engine.errors import InvalidLog, InvalidNotation
from sanma.engine.hand import Meld, MeldType
from sanma.engine.reading import Reading
from sanma.engine.rules import Rules
from sanma.engine.scoring import Payments, Score
from sanma.engine.tiles import Tile, kind_name, parse_kind, tile_name
from sanma.engine.visibility import HIDDEN, HIDDEN_SEED

EVENT_TYPES: Final[dict[str, type]] = {
    cls.__name__: cls
    for cls in (
        ev.MatchStarted,
        ev.HandStarted,
        ev.TileDrawn,
        ev.TileDiscarded,
        ev.MeldCalled,
        ev.KitaDeclared,
        ev.DoraRevealed,
        ev.RiichiAccepted,
        ev.HandWon,
        ev.HandDrawn,
        ev.HandAborted,
        ev.MatchEnded,
    )
}
_VALUE_TYPES: Final[dict[str, type]] = {
    cls.__name__: cls for cls in (Meld, Score, Payments, Reading, Rules)
}  # a Score stored before its reading was kept has none: ``reading`` is None

# -- the store form ------------------------------------------------------------------------


def event_to_store(event: ev.Event) -> dict[str, Any]:
    """The full event as JSON-ready data (``{"t": "TileDrawn", "seat": 1, "tile": 42, ...}``)."""
    out = _encode(event)
    assert isinstance(out, dict)
    return out


def event_from_store(data: dict[str, Any]) -> ev.Event:
    """The event that ``event_to_store`` wrote; ``InvalidLog`` on anything else."""
    if not isinstance(data, dict) or data.get("t") not in EVENT_TYPES:
        raise InvalidLog(f"not a stored event: {data!r:.80}")
    try:
        event = _decode(data)
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidLog(f"bad stored event {data!r:.80}: {exc}") from exc
    return event  # type: ignore[no-any-return]


def rules_to_json(rules: Rules) -> dict[str, Any]:
    """``Rules`` as JSON-ready data."""
    return {f.name: _encode(getattr(rules, f.name)) for f in dataclasses.fields(rules)}


def rules_from_json(data: dict[str, Any]) -> Rules:
    """The ``Rules`` that ``rules_to_json`` wrote."""
    return _build(Rules, data)  # type: ignore[no-any-return]


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"t": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = _encode(getattr(value, f.name))
        return out
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        name = value.get("t")
        cls = EVENT_TYPES.get(name) or _VALUE_TYPES.get(name)  # type: ignore[arg-type]
        if cls is None:
            raise ValueError(f"unknown type {name!r}")
        return _build(cls, value)
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    return value


def _build(cls: type, data: dict[str, Any]) -> Any:
    known = {f.name for f in dataclasses.fields(cls)}
    kwargs = {k: _decode(v) for k, v in data.items() if k != "t"}
    unknown = set(kwargs) - known
    if unknown:
        raise ValueError(f"{cls.__name__} has no field {sorted(unknown)}")
    if cls is Meld:
        kwargs["type"] = MeldType(kwargs["type"])
    return cls(**kwargs)


# -- the wire form -------------------------------------------------------------------------

_TILE_FIELDS: Final = frozenset({"tile", "dora_indicator", "indicator", "called", "added"})
_TILE_LISTS: Final = frozenset({"hand", "tiles", "ura_indicators"})
_TILE_LIST_LISTS: Final = frozenset({"hands", "tenpai_hands"})
_KIND_FIELDS: Final = frozenset({"round_wind"})


def wire_tile(tile: Tile, red_fives: bool) -> str:
    """A physical tile in mpsz; ``"?"`` for a hidden one.

    >>> wire_tile(-1, True), wire_tile(4 * 6, True), wire_tile(4 * 6, False)
    ('?', '0p', '5p')
    """
    return "?" if tile == HIDDEN else tile_name(tile, red_fives)


def event_to_wire(event: ev.Event, red_fives: bool) -> dict[str, Any]:
    """A (redacted) event as the browser sees it: the engine's field names, tiles in mpsz."""
    return _wire_value(event, red_fives)  # type: ignore[no-any-return]


def _wire_value(value: Any, red_fives: bool) -> Any:
    if isinstance(value, Score):
        return _wire_score(value)
    if isinstance(value, Rules):
        return rules_to_json(value)
    if not (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return _encode(value)
    out: dict[str, Any] = {"type": type(value).__name__} if type(value).__name__ in EVENT_TYPES else {}
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if f.name in _TILE_FIELDS and item is not None:
            out[f.name] = wire_tile(item, red_fives)
        elif f.name in _TILE_LISTS:
            out[f.name] = [wire_tile(t, red_fives) for t in item]
        elif f.name in _TILE_LIST_LISTS:
            out[f.name] = [[wire_tile(t, red_fives) for t in hand] for hand in item]
        elif f.name in _KIND_FIELDS:
            out[f.name] = kind_name(item)
        elif f.name == "seed":
            out[f.name] = None if item == HIDDEN_SEED else str(item)
        elif f.name == "salt":
            out[f.name] = item or None  # "": hidden (redacted) or none drawn
        elif isinstance(item, tuple) and item and dataclasses.is_dataclass(item[0]):
            out[f.name] = [_wire_value(m, red_fives) for m in item]
        else:
            out[f.name] = _wire_value(item, red_fives)
    return out


def _wire_score(score: Score) -> dict[str, Any]:
    return {
        "han": score.han,
        "fu": score.fu,
        "yakuman": score.yakuman,
        "limit": score.limit,
        "yaku": [[name, han] for name, han in score.yaku],
        "fu_breakdown": [[why, fu] for why, fu in score.fu_breakdown],
        "base": score.base,
        "payments": {
            "ron": score.payments.ron,
            "dealer": score.payments.dealer,
            "non_dealer": score.payments.non_dealer,
        },
        "total": score.total,
    }


def action_to_wire(action: Action, red_fives: bool) -> dict[str, Any]:
    """An action in wire form, e.g. ``{"type": "discard", "tile": "0p", "riichi": false}``.

    >>> action_to_wire(Pon(11, red=False), True)
    {'type': 'pon', 'kind': '1s', 'red': False}
    """
    if isinstance(action, Discard):
        return {"type": "discard", "tile": wire_tile(action.tile, red_fives), "riichi": action.riichi}
    if isinstance(action, Pon):
        return {"type": "pon", "kind": kind_name(action.kind), "red": action.red}
    if isinstance(action, Kan):
        return {"type": "kan", "kind": kind_name(action.kind)}
    return {"type": _SIMPLE_NAMES[type(action)]}


_SIMPLE: Final[dict[str, type]] = {
    "kita": Kita,
    "tsumo": Tsumo,
    "ron": Ron,
    "pass": Pass,
    "nine_terminals": NineTerminals,
}
_SIMPLE_NAMES: Final[dict[type, str]] = {cls: name for name, cls in _SIMPLE.items()}
_TILE_RE: Final = re.compile(r"^[0-9][mps]$|^[1-7]z$")


class BadAction(ValueError):
    """A client's action that does not fit the schema (as opposed to an illegal one)."""


def normalize_action(data: object) -> dict[str, Any]:
    """Check a client's action against the schema and return it in canonical wire form
    (defaults filled in), ready to compare with the legal actions' wire forms.

    >>> normalize_action({"type": "discard", "tile": "3p"})
    {'type': 'discard', 'tile': '3p', 'riichi': False}
    """
    if not isinstance(data, dict):
        raise BadAction("an action is an object")
    kind = data.get("type")
    if kind == "discard":
        _only(data, {"type", "tile", "riichi"})
        tile = _tile_text(data.get("tile"), allow_red=True)
        return {"type": "discard", "tile": tile, "riichi": _flag(data, "riichi")}
    if kind == "pon":
        _only(data, {"type", "kind", "red"})
        return {"type": "pon", "kind": _tile_text(data.get("kind"), allow_red=False), "red": _flag(data, "red")}
    if kind == "kan":
        _only(data, {"type", "kind"})
        return {"type": "kan", "kind": _tile_text(data.get("kind"), allow_red=False)}
    if kind in _SIMPLE:
        _only(data, {"type"})
        return {"type": kind}
    raise BadAction(f"unknown action type {kind!r:.20}")


def _only(data: dict[str, Any], allowed: set[str]) -> None:
    extra = set(data) - allowed
    if extra:
        raise BadAction(f"unexpected field(s) {sorted(extra)!r:.60}")


def _flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise BadAction(f"{name} is true or false")
    return value


def _tile_text(value: object, *, allow_red: bool) -> str:
    if not isinstance(value, str) or not _TILE_RE.match(value):
        raise BadAction(f"not a tile in mpsz: {value!r:.20}")
    if value[0] == "0" and not allow_red:
        raise BadAction("a kind is named without red, e.g. 5p")
    try:
        parse_kind(value.replace("0", "5"))
    except InvalidNotation as exc:  # e.g. 2m-8m do not exist in sanma
        raise BadAction(str(exc)) from exc
    return value
