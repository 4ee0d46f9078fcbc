"""Writing tenhou.net/6 logs from our events: score texts, yaku names, call strings and the
17 elements of a hand (see ``docs/formats.md``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Final

from sanma.engine.errors import InvalidLog
from sanma.engine.events import (
    DoraRevealed,
    Event,
    HandAborted,
    HandDrawn,
    HandStarted,
    HandWon,
    KitaDeclared,
    KyokuEvent,
    MatchEnded,
    MatchStarted,
    MeldCalled,
    TileDiscarded,
    TileDrawn,
)
from sanma.engine.formats.tenhou6_codes import (
    DAIMINKAN_PLACEHOLDER,
    KITA_CODE,
    TSUMOGIRI,
    call_offset,
    recorded_payment,
    tile_code,
)
from sanma.engine.hand import Meld, MeldType
from sanma.engine.rules import Rules
from sanma.engine.scoring import Score
from sanma.engine.tiles import EAST, SEATS, Tile, TileKind, kind_of, seat_wind

# ---------------------------------------------------------------------------
# export: our hand events -> tenhou.net/6

# Tenhou's yaku names in the order its logs list them (learnt from the 81 Tenhou wins:
# riichi, ippatsu, rinshan, menzen tsumo, chiitoitsu, pinfu, tanyao, iipeikou, sanankou,
# toitoi, round wind, seat wind, yakuhai, honitsu, then ドラ, 赤ドラ, 裏ドラ; the places of
# yaku absent from those logs are a guess).
_TENHOU_YAKU: Final[tuple[tuple[str, str], ...]] = (
    ("riichi", "立直"),
    ("double_riichi", "両立直"),
    ("ippatsu", "一発"),
    ("chankan", "槍槓"),
    ("rinshan", "嶺上開花"),
    ("menzen_tsumo", "門前清自摸和"),
    ("haitei", "海底摸月"),
    ("houtei", "河底撈魚"),
    ("chiitoitsu", "七対子"),
    ("pinfu", "平和"),
    ("tanyao", "断幺九"),
    ("iipeikou", "一盃口"),
    ("ryanpeikou", "二盃口"),
    ("sanankou", "三暗刻"),
    ("toitoi", "対々和"),
    ("round_wind", "場風"),
    ("seat_wind", "自風"),
    ("yakuhai_white", "役牌 白"),
    ("yakuhai_green", "役牌 發"),
    ("yakuhai_red", "役牌 中"),
    ("sanshoku", "三色同順"),
    ("ittsu", "一気通貫"),
    ("chanta", "混全帯幺九"),
    ("junchan", "純全帯幺九"),
    ("sanshoku_doukou", "三色同刻"),
    ("sankantsu", "三槓子"),
    ("shousangen", "小三元"),
    ("honroutou", "混老頭"),
    ("honitsu", "混一色"),
    ("chinitsu", "清一色"),
    ("tenhou", "天和"),
    ("chiihou", "地和"),
    ("daisangen", "大三元"),
    ("suuankou", "四暗刻"),
    ("suuankou_tanki", "四暗刻単騎"),
    ("tsuuiisou", "字一色"),
    ("ryuuiisou", "緑一色"),
    ("chinroutou", "清老頭"),
    ("chuuren", "九蓮宝燈"),
    ("junsei_chuuren", "純正九蓮宝燈"),
    ("kokushi", "国士無双"),
    ("kokushi_13", "国士無双１３面"),
    ("daisuushii", "大四喜"),
    ("shousuushii", "小四喜"),
    ("suukantsu", "四槓子"),
    ("dora", "ドラ"),
    ("red_dora", "赤ドラ"),
    ("ura_dora", "裏ドラ"),
    ("kita", "抜きドラ"),
)
_YAKU_ORDER: Final = {name: i for i, (name, _) in enumerate(_TENHOU_YAKU)}
_YAKU_TEXT: Final = dict(_TENHOU_YAKU)
_WIND_TEXT: Final = "東南西北"
_LIMIT_TEXT: Final = {
    "mangan": "満貫",
    "haneman": "跳満",
    "baiman": "倍満",
    "sanbaiman": "三倍満",
    "yakuman": "役満",
}
_REASON_TEXT: Final = {
    "exhaustive": "流局",
    "nagashi": "流し満貫",
    "nine_terminals": "九種九牌",
    "four_kans": "四槓散了",
}


def points_text(score: Score, tsumo: bool, winner_is_dealer: bool) -> str:
    """Tenhou's score text (payments without honba), e.g. ``"30符2飜500-1000点"``.

    >>> from sanma.engine.scoring import Payments
    >>> points_text(Score(2, 30, 0, "none", (), 480, Payments(), 0), True, False)
    '30符2飜500-1000点'
    """
    paid = recorded_payment(score.base, tsumo, winner_is_dealer)
    if not tsumo:
        amount = f"{paid.ron}点"
    elif winner_is_dealer:
        amount = f"{paid.non_dealer}点∀"
    else:
        amount = f"{paid.non_dealer}-{paid.dealer}点"
    if score.limit == "none":
        return f"{score.fu}符{score.han}飜{amount}"
    return _LIMIT_TEXT[score.limit] + amount


def yaku_texts(score: Score, seat_wind: TileKind, round_wind: TileKind, *, kita_apart: bool = False) -> list[str]:
    """Tenhou's yaku strings in Tenhou's order.  Tenhou counts kita inside ``ドラ``;
    ``kita_apart`` writes it as ``抜きドラ`` and the winds as ``役牌:自風牌``/``役牌:場風牌``,
    the way Mahjong Soul conversions do."""
    han = dict(score.yaku)
    true_yakuman = score.yakuman > 0 and not score.counted_yakuman
    if not kita_apart and han.get("kita"):
        han["dora"] = han.get("dora", 0) + han.pop("kita")
    out = []
    for name in sorted(han, key=lambda n: _YAKU_ORDER.get(n, len(_YAKU_ORDER))):
        text = _YAKU_TEXT.get(name, name)
        if name in ("seat_wind", "round_wind") and kita_apart:
            text = "役牌:自風牌" if name == "seat_wind" else "役牌:場風牌"
        elif name == "seat_wind":
            text = f"{text} {_WIND_TEXT[seat_wind - EAST]}"
        elif name == "round_wind":
            text = f"{text} {_WIND_TEXT[round_wind - EAST]}"
        if true_yakuman:
            out.append(f"{text}(役満)")
        elif han[name]:
            out.append(f"{text}({han[name]}飜)")
    return out


def _hand_tile_order(tile: Tile, red_fives: bool) -> tuple[int, bool]:
    # Tenhou writes plain fives before the red one inside a call string.
    code = tile_code(tile, red_fives)
    return kind_of(tile), code in (52, 53)


def meld_string(meld: Meld, seat: int, red_fives: bool = True) -> str:
    """The tenhou.net/6 string of a meld called or declared by ``seat``.

    >>> from sanma.engine.hand import Meld, MeldType
    >>> meld_string(Meld(MeldType.PON, (96, 97, 98), called=96, from_seat=2), 0)
    '45p4545'
    """
    code = partial(tile_code, red_fives=red_fives)
    if meld.type is MeldType.ANKAN:
        tiles = sorted(meld.tiles, key=lambda t: _hand_tile_order(t, red_fives))
        return "".join(str(code(t)) for t in tiles[:3]) + "a" + str(code(tiles[3]))
    assert meld.called is not None and meld.from_seat is not None
    rest = [t for t in meld.tiles if t not in (meld.called, meld.added)]
    rest.sort(key=lambda t: _hand_tile_order(t, red_fives))
    letter = "m" if meld.type is MeldType.DAIMINKAN else "p"
    offset = call_offset(letter, seat, meld.from_seat) // 2
    parts = [str(code(t)) for t in rest]
    marked = f"{letter}{code(meld.called)}"
    if meld.type is MeldType.KAKAN:
        assert meld.added is not None
        marked = f"k{code(meld.added)}{code(meld.called)}"
    parts.insert(offset, marked)
    return "".join(parts)


def export_hand(events: Sequence[KyokuEvent], rules: Rules, *, sort_haipai: bool = False) -> list[object]:
    """One hand's events -> the 17-element tenhou.net/6 hand.

    ``sort_haipai`` sorts the starting hands the way Tenhou does (plain fives before the
    red one); without it they keep the deal's order.  Tenhou counts kita inside ``ドラ``;
    under the ``mahjongsoul`` preset kita is written as ``抜きドラ``.
    """
    red = rules.red_fives
    code = partial(tile_code, red_fives=red)
    start = events[0]
    if not isinstance(start, HandStarted):
        raise InvalidLog("a hand's events start with HandStarted")
    haipai = [list(h) for h in start.hands]
    if sort_haipai:
        haipai = [sorted(h, key=lambda t: _hand_tile_order(t, red)) for h in haipai]
    draws: list[list[object]] = [[], [], []]
    discards: list[list[object]] = [[], [], []]
    dora = [code(start.dora_indicator)]
    ura: list[int] = []
    result: list[object] = []
    for event in events[1:]:
        if isinstance(event, TileDrawn):
            draws[event.seat].append(code(event.tile))
        elif isinstance(event, TileDiscarded):
            value = TSUMOGIRI if event.tsumogiri else code(event.tile)
            discards[event.seat].append(f"r{value}" if event.riichi else value)
        elif isinstance(event, KitaDeclared):
            discards[event.seat].append(KITA_CODE)
        elif isinstance(event, MeldCalled):
            text = meld_string(event.meld, event.seat, red)
            if event.meld.type is MeldType.PON:
                draws[event.seat].append(text)
            elif event.meld.type is MeldType.DAIMINKAN:
                draws[event.seat].append(text)
                discards[event.seat].append(DAIMINKAN_PLACEHOLDER)
            else:
                discards[event.seat].append(text)
        elif isinstance(event, DoraRevealed):
            dora.append(code(event.indicator))
        elif isinstance(event, HandWon):
            if event.ura_indicators and not ura:
                ura = [code(t) for t in event.ura_indicators]
            result += _won_entry(event, start, rules)
        elif isinstance(event, HandDrawn):
            reason = "nagashi" if event.nagashi else event.reason
            result = [_REASON_TEXT.get(reason, "流局"), [*event.deltas, 0]]
        elif isinstance(event, HandAborted):
            result = [_REASON_TEXT.get(event.reason, event.reason)]
    if result and isinstance(result[0], list):
        result.insert(0, "和了")
    kyoku = 4 * (start.round_wind - EAST) + start.dealer
    hand: list[object] = [[kyoku, start.honba, start.deposits], [*start.scores, 0], dora, ura]
    for seat in SEATS:
        hand += [[code(t) for t in haipai[seat]], draws[seat], discards[seat]]
    return [*hand, [], [], [], result]


def _won_entry(event: HandWon, start: HandStarted, rules: Rules) -> list[object]:
    wind = seat_wind(event.seat, start.dealer)
    tsumo = event.seat == event.from_seat
    score = event.score
    info: list[object] = [
        event.seat,
        event.from_seat,
        event.seat if event.pao_seat is None else event.pao_seat,
        points_text(score, tsumo, event.seat == start.dealer),
        *yaku_texts(score, wind, start.round_wind, kita_apart=rules.preset == "mahjongsoul"),
    ]
    return [[*event.deltas, 0], info]


def export_game(
    hands: Sequence[Sequence[KyokuEvent]],
    rules: Rules,
    *,
    names: Sequence[str] = ("", "", ""),
    rule_name: str = "三般南喰赤",
    ref: str = "",
    final_points: Sequence[int] | None = None,
    final_scores: Sequence[float] | None = None,
    sort_haipai: bool = True,
) -> dict[str, object]:
    """A whole game -> a tenhou.net/6 object (``sc`` only when final points are given)."""
    data: dict[str, object] = {
        "ver": 2.3,
        "ref": ref,
        "log": [export_hand(h, rules, sort_haipai=sort_haipai) for h in hands],
        "ratingc": "PF3",
        "rule": {"disp": rule_name, "aka53": int(rules.red_fives), "aka52": int(rules.red_fives), "aka51": 0},
        "lobby": 0,
        "dan": ["", "", "", ""],
        "rate": [1500, 1500, 1500, 1500],
        "sx": ["C", "C", "C", "C"],
        "name": [*names[:3], ""],
    }
    if final_points is not None:
        scores = final_scores if final_scores is not None else [0.0, 0.0, 0.0]
        sc: list[float] = []
        for seat in SEATS:
            sc += [final_points[seat], scores[seat]]
        data["sc"] = [*sc, 0, 0]
    return data


def split_hands(events: Sequence[Event]) -> list[list[KyokuEvent]]:
    """A match's events cut into hands, each from its ``HandStarted`` to its end (what
    ``export_game`` takes)."""
    hands: list[list[KyokuEvent]] = []
    for event in events:
        if isinstance(event, MatchStarted | MatchEnded):
            continue
        if isinstance(event, HandStarted):
            hands.append([])
        if hands:
            hands[-1].append(event)
    return hands


def rule_name_for(rules: Rules) -> str:
    """The tenhou.net/6 room name our rules come closest to: the length and red fives (a
    re-import reads the preset from it, ``preset_for_rule_name``; ``docs/formats.md``).

    >>> from sanma.engine.rules import PRESETS
    >>> rule_name_for(PRESETS["default"]), rule_name_for(PRESETS["mahjongsoul"].with_options(length="east"))
    ('三般南喰赤', '三金の間東赤')
    """
    length = "東" if rules.length in ("east", "one-hand") else "南"
    if rules.preset == "mahjongsoul":
        return f"三金の間{length}{'赤' if rules.red_fives else ''}"
    return f"三般{length}喰{'赤' if rules.red_fives else ''}"
