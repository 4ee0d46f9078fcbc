"""A jansou agent (``jansou.game.agents``) seated in riichienv's three-player env.

Benchmark-only, like riichienv and jansou themselves.  One ``JansouSeat`` plays one seat:

* **Events.**  The mjai events riichienv gives the seat (its own tiles shown, the others'
  draws and hands as ``?``) become the jansou events of that seat's masked view:
  ``start_kyoku`` -> ``DealStart`` (the other hands ``None``), ``tsumo`` -> ``Draw`` (tile
  ``None`` for another seat; ``replacement`` after a kan or a kita), ``dahai`` -> ``Discard``
  (``riichi`` when the actor's ``reach`` came just before), ``pon`` / ``daiminkan`` /
  ``ankan`` / ``kakan`` -> ``Call`` (the called tile included, the source the target),
  ``kita`` -> ``NorthExtraction``, ``dora`` -> ``IndicatorReveal``, ``reach_accepted`` ->
  ``RiichiAccepted``, and a ``hora`` / ``ryukyoku`` with deltas -> ``ScoreChange``.
  **Not mapped:** ``Win`` and ``Ryuukyoku`` themselves (they carry a scored ``Hand`` the
  mjai stream does not give), ``GameStart`` / ``GameEnd`` (riichienv's ``start_game`` names
  no players or scores) and ``reach`` alone (jansou has no event for it: it rides on the
  discard).  The reference agents read only the deal, draws, discards, calls, North
  extractions and indicators, so none of these change their play.
* **Decisions.**  riichienv's legal actions (``.to_mjai()``) become jansou's ``Action`` menu:
  ``dahai`` -> ``Discard`` (``tsumogiri`` for the drawn tile, a second copy held in hand
  offered apart, as jansou does), ``reach`` -> one ``Riichi`` per discard that leaves the
  hand ready (riichienv declares first and discards next: the chosen tile is played at the
  seat's next decision), ``hora`` -> ``Tsumo`` on the seat's own turn, else ``Ron``, ``pon``
  -> ``Pon`` (its two hand tiles), ``daiminkan`` -> ``OpenKan``, ``ankan`` -> ``ClosedKan``,
  ``kakan`` -> ``AddedKan``, ``kita`` -> ``Nuki``, ``ryukyoku`` -> ``NineTerminals``,
  ``none`` -> ``Pass``.  The ``DecisionKind`` is ``SELF`` on the seat's own turn, else the
  reaction the cue names (a discard, a kan to rob, a North).  The chosen action goes back as
  the mjai answer it was built from, matched by ``select_action_from_mjai``.
  **Not mapped:** ``chi`` (no chi in three-player) and ``DecisionKind.TENPAI`` (riichienv
  settles an exhaustive draw itself); an answer outside the menu, or one the env does not
  match, comes back as ``None`` and the caller counts it as rejected.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from jansou.analysis.shanten import shanten_counts
from jansou.core.hand import MeldType
from jansou.core.notation import parse_mjai
from jansou.core.tiles import Tile, Wind, counts_by_kind
from jansou.game import actions as ja
from jansou.game import events as je
from jansou.game.agents import Agent
from jansou.game.flow import DecisionKind

Mjai = dict[str, Any]

_WINDS = {"E": Wind.EAST, "S": Wind.SOUTH, "W": Wind.WEST, "N": Wind.NORTH}
_CALLS = {"pon": MeldType.PON, "daiminkan": MeldType.DAIMINKAN, "ankan": MeldType.ANKAN, "kakan": MeldType.SHOUMINKAN}
_REPLACED = {"kita", "ankan", "kakan", "daiminkan"}  # the actor's next draw is a replacement
_OWN_TURN = {"dahai", "reach", "kita", "ankan", "kakan", "ryukyoku"}
_REACTION = {"kakan": DecisionKind.ROBBED_KAN, "ankan": DecisionKind.ROBBED_KAN, "kita": DecisionKind.NORTH_REACTION}
_NOT_A_CUE = {"dora", "reach_accepted"}
_DEPOSIT = 1000


def tile(token: str) -> Tile:
    """The jansou tile an mjai token names (``5pr`` is the red five)."""
    return parse_mjai(token)[0]


class JansouSeat:
    """One riichienv seat whose decisions a jansou ``Agent`` makes."""

    def __init__(self, agent: Agent, seat: int) -> None:
        self.agent = agent
        self.seat = seat
        self.observed = 0  # jansou events handed to the agent
        self._hand: list[str] = []  # the seat's concealed tokens, the draw included
        self._melds = 0
        self._drawn: str | None = None
        self._scores: list[int] = []
        self._reach_by: int | None = None
        self._replacing: int | None = None  # the seat whose next draw is a replacement
        self._cue = "?"  # the last event a reaction could answer
        self._queued: list[Mjai] = []  # a riichi's discard, played at the next decision

    # -- events -------------------------------------------------------------------------

    def observe(self, events: list[Mjai]) -> None:
        """Hand the agent the jansou events these mjai events stand for, in order."""
        for event in events:
            for converted in self._convert(event):
                self.agent.observe(converted)
                self.observed += 1
            self._track(event)

    def _convert(self, e: Mjai) -> Iterator[je.Event]:
        kind = e["type"]
        actor = e.get("actor", -1)
        if kind == "start_kyoku":
            yield self._deal(e)
        elif kind == "tsumo":
            yield je.Draw(actor, None if e["pai"] == "?" else tile(e["pai"]), replacement=self._replacing == actor)
        elif kind == "dahai":
            riichi = self._reach_by == actor
            yield je.Discard(actor, tile(e["pai"]), tsumogiri=bool(e.get("tsumogiri")), riichi=riichi)
        elif kind in _CALLS:
            yield self._call(e)
        elif kind == "kita":
            yield je.NorthExtraction(actor, tile(e["pai"]))
        elif kind == "dora":
            yield je.IndicatorReveal(tile(e["dora_marker"]))
        elif kind == "reach_accepted":
            yield je.RiichiAccepted(actor)
        elif kind in ("hora", "ryukyoku") and "deltas" in e:
            self._scores = [s + d for s, d in zip(self._scores, e["deltas"], strict=True)]
            yield je.ScoreChange(tuple(e["deltas"]), tuple(self._scores))

    def _deal(self, e: Mjai) -> je.DealStart:
        self._scores = list(e["scores"])
        own = tuple(tile(t) for t in e["tehais"][self.seat])
        return je.DealStart(
            dealer=e["oya"],
            round_wind=_WINDS[e["bakaze"]],
            round_number=e["kyoku"],
            honba=e["honba"],
            deposits=e["kyotaku"] * _DEPOSIT,
            scores=tuple(e["scores"]),
            hands=tuple(own if s == self.seat else None for s in range(len(e["tehais"]))),
            dora_indicator=tile(e["dora_marker"]),
        )

    def _call(self, e: Mjai) -> je.Call:
        kind = e["type"]
        tokens = list(e["consumed"]) if kind == "ankan" else [*e["consumed"], e["pai"]]
        source = e["target"] if kind in ("pon", "daiminkan") else e["actor"]
        return je.Call(_CALLS[kind], e["actor"], source, tuple(sorted(tile(t) for t in tokens)))

    def _track(self, e: Mjai) -> None:
        """Keep the seat's own tiles (riichi needs them) and the context of the next events."""
        kind = e["type"]
        actor = e.get("actor", -1)
        if kind not in _NOT_A_CUE:
            self._cue = kind
        self._reach_by = actor if kind == "reach" else None if kind == "dahai" else self._reach_by
        if kind in _REPLACED:
            self._replacing = actor
        elif kind == "tsumo":
            self._replacing = None
        if kind == "start_kyoku":
            self._hand, self._melds, self._drawn, self._queued = list(e["tehais"][self.seat]), 0, None, []
        elif actor == self.seat:
            self._track_own(e)

    def _track_own(self, e: Mjai) -> None:
        kind = e["type"]
        if kind == "tsumo":
            self._hand.append(e["pai"])
            self._drawn = e["pai"]
            return
        if kind not in ("dahai", "kita", "kakan", *_CALLS):
            return
        self._drawn = None
        gone = e["consumed"] if kind in ("pon", "daiminkan", "ankan") else [e["pai"]]
        for token in gone:
            self._hand.remove(token)
        self._melds += kind in ("pon", "daiminkan", "ankan")

    # -- decisions ----------------------------------------------------------------------

    def decide(self, ob: Any) -> tuple[Any, str]:
        """The env action the agent chose (``None`` when it cannot be mapped) and its name."""
        if self._queued:
            answer, self._queued = self._queued[0], self._queued[1:]
            return ob.select_action_from_mjai(answer), "Riichi discard"
        moves = [json.loads(a.to_mjai()) for a in ob.legal_actions()]
        kind = DecisionKind.SELF if any(m["type"] in _OWN_TURN for m in moves) else self._reaction_kind()
        menu = self.menu(moves, kind)
        choice = self.agent.act(self.seat, kind, list(menu))
        answers = menu.get(choice)
        if not answers:
            return None, type(choice).__name__
        action = ob.select_action_from_mjai(answers[0])
        self._queued = answers[1:] if action is not None else []
        return action, type(choice).__name__

    def _reaction_kind(self) -> DecisionKind:
        return _REACTION.get(self._cue, DecisionKind.DISCARD_REACTION)

    def menu(self, moves: list[Mjai], kind: DecisionKind) -> dict[ja.Action, list[Mjai]]:
        """jansou's legal actions, in jansou's order, each with the mjai answer(s) it stands for."""
        menu: dict[ja.Action, list[Mjai]] = {}
        for m in moves:
            if m["type"] == "hora":
                menu[ja.Tsumo() if kind is DecisionKind.SELF else ja.Ron()] = [m]
        for m in moves:
            if m["type"] in ("ankan", "kakan", "kita", "ryukyoku"):
                menu[self._self_option(m)] = [m]
        copies = Counter(m["pai"] for m in moves if m["type"] == "dahai")
        discards = [(token, tsumogiri) for token in copies for tsumogiri in self._variants(token, copies[token])]
        reach = next((m for m in moves if m["type"] == "reach"), None)
        if reach is not None:
            for token, tsumogiri in discards:
                if self._ready_without(token):
                    menu[ja.Riichi(tile(token), tsumogiri)] = [reach, self._dahai(token, tsumogiri)]
        for token, tsumogiri in discards:
            menu[ja.Discard(tile(token), tsumogiri)] = [self._dahai(token, tsumogiri)]
        for m in moves:
            if m["type"] == "pon":
                first, second = sorted(tile(t) for t in m["consumed"])
                menu[ja.Pon((first, second))] = [m]
            elif m["type"] == "daiminkan":
                menu[ja.OpenKan()] = [m]
        for m in moves:
            if m["type"] == "none":
                menu[ja.Pass()] = [m]
        return menu

    @staticmethod
    def _self_option(m: Mjai) -> ja.Action:
        kind = m["type"]
        if kind == "ankan":
            return ja.ClosedKan(tile(m["consumed"][0]).kind)
        if kind == "kakan":
            return ja.AddedKan(tile(m["pai"]))
        return ja.Nuki() if kind == "kita" else ja.NineTerminals()

    def _variants(self, token: str, copies: int) -> tuple[bool, ...]:
        """The discards of one token jansou offers: the drawn copy apart from a held one."""
        if token != self._drawn:
            return (False,)
        return (False, True) if copies > 1 else (True,)

    def _dahai(self, token: str, tsumogiri: bool) -> Mjai:
        return {"type": "dahai", "actor": self.seat, "pai": token, "tsumogiri": tsumogiri}

    def _ready_without(self, token: str) -> bool:
        rest = list(self._hand)
        rest.remove(token)
        return bool(shanten_counts(counts_by_kind(tile(t) for t in rest), self._melds) == 0)
