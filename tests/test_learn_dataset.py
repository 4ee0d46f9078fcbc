"""The learned master's dataset: each decision as the seat saw it (nothing hidden), the
human's answer legal, augmentation that relabels a hand and its legal actions together, and
the same shards from the same games."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from sanma.engine.actions import Action, Discard, Kan, Pon
from sanma.engine.events import MatchStarted
from sanma.engine.formats import mjlog, tenhou6
from sanma.engine.kyoku import Kyoku
from sanma.engine.tiles import GREEN, KIND_COUNT, RED, WHITE, dora_of, kind_of
from sanma.engine.view import SeatView
from sanma.engine.visibility import redact
from sanma.learn import dataset
from sanma.learn import encode as enc
from tests.fixtures.mjlog import DEALER, NINE_TERMINALS_HAND, RON_HAND, SEAT2_WHITES, game_xml

GAME = game_xml(NINE_TERMINALS_HAND, RON_HAND)


def _samples(text: str) -> dataset.Samples:
    out = dataset.Samples()
    dataset.game_samples(text, "synthetic.xml", 0, out)
    return out


def _columns(out: dataset.Samples) -> dict[str, np.ndarray]:
    return {k: v for k, v in out.arrays(["g"], [20260116]).items() if k not in ("game_names", "game_days")}


def _seat_rows(out: dataset.Samples, seat: int) -> list[tuple[bytes, bytes, bytes, int]]:
    return [
        (out.planes[i].tobytes(), out.scalars[i].tobytes(), out.masks[i].tobytes(), out.actions[i])
        for i in range(len(out))
        if out.seats[i] == seat
    ]


def test_the_synthetic_game_gives_every_decision_with_a_legal_human_answer() -> None:
    out = _samples(GAME)
    assert out.violations == [] and out.counts["mask_miss"] == 0
    assert all(out.masks[i][out.actions[i]] for i in range(len(out)))
    # hand 1: the nine-terminals declaration; hand 2: a kita, a pon of White, a ron
    assert out.counts["nine_terminals_taken"] == 1 and out.counts["kita_taken"] == 1
    assert out.counts["pon_taken"] == 1 and out.counts["ron_taken"] == 1
    white = out.actions.index(enc.DISCARD + 2 * WHITE)  # the dealer's White from the hand ...
    assert out.seats[white] == 0 and not out.windows[white]
    pon = out.actions.index(enc.PON + WHITE)  # ... which seat 2 pons
    assert out.seats[pon] == 2 and out.windows[pon]
    assert out.planes[pon][enc.PLANES["offered"], WHITE] == 1


def test_a_seat_sees_no_hidden_tile_of_another() -> None:
    """Seat 2 holds an 8s instead of an East it never shows: every decision of seats 0 and 1
    is encoded the same, seat 2's own decisions see its own hand change."""
    other_hand = SEAT2_WHITES.replace("109", "100")  # East (copy 1) -> 8s (copy 0), never played
    assert other_hand != SEAT2_WHITES
    plain = _samples(GAME)
    changed = _samples(game_xml(NINE_TERMINALS_HAND, RON_HAND.replace(SEAT2_WHITES, other_hand)))
    assert changed.violations == [] and len(changed) == len(plain)
    for seat in (0, 1):
        assert _seat_rows(changed, seat) == _seat_rows(plain, seat)
    assert _seat_rows(changed, 2) != _seat_rows(plain, 2)


def test_an_illegal_human_action_is_a_violation_and_the_hand_stops() -> None:
    """The dealer (two Norths, a White... far from ready) declares riichi: the engine refuses."""
    assert DEALER in RON_HAND
    bad = RON_HAND.replace("<T3/><D120/>", '<T3/><REACH who="0" step="1"/><D120/>')
    out = _samples(game_xml(NINE_TERMINALS_HAND, bad))
    (violation,) = out.violations
    assert "hand 1 action 1" in violation and "riichi" in violation
    assert all(out.hands[i] == 0 or out.seats[i] == 0 for i in range(len(out)))


# -- the action space --------------------------------------------------------------------------


def test_every_legal_index_maps_back_to_a_legal_action() -> None:
    game = mjlog.loads(GAME)
    hand = game.hands[1]
    rules = tenhou6.rules_for(game)
    kyoku = Kyoku.start(hand.deal, rules=rules, round_wind=hand.round_wind, dealer=hand.dealer,
                        honba=hand.honba, deposits=hand.deposits, scores=hand.scores)  # fmt: skip
    view = SeatView(0)
    for event in [MatchStarted(0, rules, "mjlog"), *kyoku.events]:
        view.apply(redact(event, 0))
    legal = kyoku.legal_actions(0)
    mask = enc.legal_mask(view, legal)
    assert mask[enc.KITA] and mask[enc.DISCARD + 2 * kind_of(view.drawn or 0) + 1]
    for index in np.flatnonzero(mask):
        action = enc.action_of(int(index), view, legal)
        assert action in legal and enc.action_index(action, view.drawn) == index
    with pytest.raises(ValueError, match="not legal"):
        enc.action_of(enc.PASS, view, legal)


# -- augmentation ------------------------------------------------------------------------------


def _relabel(tile: int, kinds: np.ndarray) -> int:
    return int(kinds[kind_of(tile)]) * 4 + tile % 4  # the copy stays: red fives stay red


def _relabel_action(action: Action, kinds: np.ndarray) -> Action:
    if isinstance(action, Discard):
        return replace(action, tile=_relabel(action.tile, kinds))
    if isinstance(action, Pon | Kan):
        return replace(action, kind=int(kinds[action.kind]))
    return action


def _relabel_game(game: tenhou6.RecordedGame, kinds: np.ndarray) -> tenhou6.RecordedGame:
    def tiles(seq: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(_relabel(t, kinds) for t in seq)

    hands = []
    for hand in game.hands:
        d = hand.deal
        deal = replace(d, hands=(tiles(d.hands[0]), tiles(d.hands[1]), tiles(d.hands[2])), live=tiles(d.live),
                       replacements=tiles(d.replacements), dora_indicators=tiles(d.dora_indicators),
                       ura_indicators=tiles(d.ura_indicators))  # fmt: skip
        actions = tuple((seat, _relabel_action(a, kinds)) for seat, a in hand.actions)
        hands.append(replace(hand, deal=deal, actions=actions))
    return replace(game, hands=tuple(hands))


@pytest.mark.parametrize("which", range(len(enc.AUGMENTATIONS)))
def test_augmenting_the_samples_equals_playing_the_relabelled_game(which: int) -> None:
    """Relabel every tile of the game (pinzu <-> souzu, the dragons shifted) and play it: its
    samples are the original samples augmented, planes, masks and answers alike."""
    kinds = enc.AUGMENTATIONS[which]
    game = mjlog.loads(GAME, source="synthetic.xml")
    plain, relabelled = dataset.Samples(), dataset.Samples()
    dataset.record_samples(game, 0, plain)
    dataset.record_samples(_relabel_game(game, kinds), 0, relabelled)
    assert relabelled.violations == [] and relabelled.counts == plain.counts
    a, b = _columns(plain), _columns(relabelled)
    planes, masks, actions = enc.augment(a["planes"], a["masks"], a["actions"], kinds)
    assert np.array_equal(planes, b["planes"]) and np.array_equal(masks, b["masks"])
    assert np.array_equal(actions, b["actions"]) and np.array_equal(a["scalars"], b["scalars"])


def test_augmentation_is_undone_and_keeps_the_dora_order() -> None:
    out = _columns(_samples(GAME))
    swap, shift = enc.kind_permutation(True, 0), enc.kind_permutation(False, 1)
    twice = enc.augment(*enc.augment(out["planes"], out["masks"], out["actions"], swap), swap)
    thrice = (out["planes"], out["masks"], out["actions"])
    for _ in range(3):
        thrice = enc.augment(*thrice, shift)
    for again in (twice, thrice):
        assert all(
            np.array_equal(x, y) for x, y in zip(again, (out["planes"], out["masks"], out["actions"]), strict=True)
        )
    assert [int(shift[k]) for k in (WHITE, GREEN, RED)] == [GREEN, RED, WHITE]
    for kinds in enc.AUGMENTATIONS:
        assert sorted(kinds) == list(range(KIND_COUNT))
        assert all(dora_of(int(kinds[k])) == kinds[dora_of(k)] for k in range(KIND_COUNT))
    # a swap that is not cyclic breaks the dora order: the reason only shifts are offered
    broken = np.arange(KIND_COUNT)
    broken[[WHITE, GREEN]] = [GREEN, WHITE]
    assert any(dora_of(int(broken[k])) != broken[dora_of(k)] for k in range(KIND_COUNT))


# -- shards ------------------------------------------------------------------------------------


def _write_games(folder: Path, names: list[str]) -> list[Path]:
    folder.mkdir()
    paths = []
    for name in names:
        path = folder / name
        path.write_bytes(gzip.compress(GAME.encode(), mtime=0))
        paths.append(path)
    return paths


def test_shards_split_by_day_are_the_same_on_every_run_and_resume(tmp_path: Path) -> None:
    names = [f"202601{d}03gm-00b9-0000-0000000{i}.xml.gz" for d, i in (("16", 1), ("16", 2), ("21", 3), ("22", 4))]
    files = _write_games(tmp_path / "games", names)
    one = list(dataset.build(files, tmp_path / "a", games_per_shard=1, workers=1))
    two = list(dataset.build(list(reversed(files)), tmp_path / "b", games_per_shard=1, workers=2))
    assert [r.shard for r in one] == [r.shard for r in two] == [
        "train-20260116-000.npz", "train-20260116-001.npz", "train-20260121-000.npz", "validation-20260122-000.npz",
    ]  # fmt: skip
    for name in [r.shard for r in one]:
        with np.load(tmp_path / "a" / name) as x, np.load(tmp_path / "b" / name) as y:
            assert sorted(x.files) == sorted(y.files)
            assert all(np.array_equal(x[k], y[k]) for k in x.files)
    mtimes = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "a").iterdir()}
    again = list(dataset.build(files, tmp_path / "a", games_per_shard=1, workers=1))
    assert again == one and mtimes == {p.name: p.stat().st_mtime_ns for p in (tmp_path / "a").iterdir()}
    loaded = dataset.load(sorted((tmp_path / "a").glob("train-*.npz")))
    assert len(loaded["actions"]) == 3 * len(_samples(GAME))


def test_a_file_without_a_day_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(dataset.DatasetError, match="day"):
        dataset.plan([tmp_path / "game.xml.gz"], tmp_path, 10)
    with pytest.raises(dataset.DatasetError, match="root element"):
        dataset.game_samples("<html/>", "x.xml", 0, dataset.Samples())


# -- real games --------------------------------------------------------------------------------


def test_real_phoenix_games_give_legal_answers_only(shared_testdata: Path) -> None:
    files = sorted((shared_testdata / "phoenix3p_mjlog").glob("*.xml.gz"))[:4]
    if not files:
        pytest.skip(f"no mjlog games in {shared_testdata / 'phoenix3p_mjlog'}")
    out = dataset.Samples()
    for game, path in enumerate(files):
        dataset.game_samples(gzip.decompress(path.read_bytes()).decode("utf-8"), path.name, game, out)
    assert out.violations == [] and out.counts["mask_miss"] == 0
    assert all(out.masks[i][out.actions[i]] for i in range(len(out)))
    assert out.counts["discard"] > 500 and out.counts["window"] > 50
    # a view holds exactly the seat's own concealed tiles: 13 between turns, 14 with a draw
    for i in range(len(out)):
        own = int(out.planes[i][:4].sum())
        assert own + 3 * int(out.scalars[i][enc.SCALAR_NAMES.index("melds@0")] * 4) in (13, 14)
