"""The learned policy (a candidate master, ``py:sanma.bots.learned:LearnedBot``): the numpy
network computes what it claims, the committed weights carry their provenance, the bot plays
only legal answers, the same ones for the same events, and on real phoenix games it has never
been trained on it discards like the humans."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sanma.bots.base import ask
from sanma.bots.learned import LearnedBot
from sanma.engine.actions import Action, Discard
from sanma.engine.events import Event
from sanma.engine.formats import mjlog
from sanma.engine.kyoku import LegalActions
from sanma.engine.match import Match
from sanma.engine.rules import Rules
from sanma.engine.tiles import kind_of
from sanma.engine.visibility import redact
from sanma.learn import dataset
from sanma.learn import encode as enc
from sanma.learn import policy as pol


def _random_policy(channels: int = 8, blocks: int = 2, seed: int = 0) -> pol.Policy:
    rng = np.random.default_rng(seed)
    shapes = {
        "stem.weight": (channels, enc.PLANE_COUNT, 3),
        "stem.bias": (channels,),
        "scalar.weight": (channels, enc.SCALAR_COUNT),
        "scalar.bias": (channels,),
        "position": (channels, pol.KINDS),
        "tile.weight": (pol.TILE_HEADS, channels, 1),
        "tile.bias": (pol.TILE_HEADS,),
        "table.weight": (pol.TABLE_HEADS, 2 * channels),
        "table.bias": (pol.TABLE_HEADS,),
    }
    for i in range(blocks):
        for part in "ab":
            shapes[f"blocks.{i}.{part}.weight"] = (channels, channels, 3)
            shapes[f"blocks.{i}.{part}.bias"] = (channels,)
    weights = {name: rng.normal(0, 0.3, shape).astype(np.float32) for name, shape in shapes.items()}
    return pol.Policy(weights, {"channels": channels, "blocks": blocks})


def test_the_convolution_is_a_same_padded_sum_over_neighbouring_kinds() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 5, pol.KINDS)).astype(np.float32)
    w = rng.normal(size=(4, 5, 3)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    expected = np.zeros((2, 4, pol.KINDS), np.float32)
    for n in range(2):
        for o in range(4):
            for t in range(pol.KINDS):
                total = b[o]
                for shift in range(3):
                    src = t + shift - 1
                    if 0 <= src < pol.KINDS:
                        total += float(w[o, :, shift] @ x[n, :, src])
                expected[n, o, t] = total
    assert np.allclose(pol._conv(x, w, b), expected, atol=1e-4)


def test_the_heads_land_on_the_encoders_action_indices() -> None:
    for head, base, tsumogiri in ((0, enc.DISCARD, 0), (1, enc.DISCARD, 1), (2, enc.RIICHI, 0), (3, enc.RIICHI, 1)):
        tile = np.zeros((1, pol.TILE_HEADS, pol.KINDS), np.float32)
        tile[0, head, 13] = 1
        assert pol.to_actions(tile, np.zeros((1, pol.TABLE_HEADS))).argmax() == base + 2 * 13 + tsumogiri
    for head, base in ((4, enc.PON), (5, enc.KAN)):
        tile = np.zeros((1, pol.TILE_HEADS, pol.KINDS), np.float32)
        tile[0, head, 20] = 1
        assert pol.to_actions(tile, np.zeros((1, pol.TABLE_HEADS))).argmax() == base + 20
    for i, index in enumerate((enc.KITA, enc.WIN, enc.NINE_TERMINALS, enc.PASS)):
        table = np.zeros((1, pol.TABLE_HEADS), np.float32)
        table[0, i] = 1
        assert pol.to_actions(np.zeros((1, pol.TILE_HEADS, pol.KINDS)), table).argmax() == index


def test_a_process_that_runs_the_policy_runs_blas_on_one_thread() -> None:
    """OpenBLAS's default threads turn a 3 ms decision into 100 ms on a loaded machine."""
    from threadpoolctl import threadpool_info

    _random_policy()
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)


def test_a_file_of_another_shape_is_refused(tmp_path: Path) -> None:
    good = _random_policy()
    broken = dict(good.w)
    broken["blocks.1.a.weight"] = broken["blocks.1.a.weight"][:, :, :1]
    with pytest.raises(pol.PolicyError, match=r"blocks\.1\.a\.weight"):
        pol.Policy(broken, good.meta)
    with pytest.raises(pol.PolicyError, match="blocks"):
        pol.Policy(good.w, {"channels": 8})
    path = tmp_path / "p.npz"
    np.savez(path, meta=np.array(json.dumps({"channels": 8, "blocks": 3})), **good.w)
    with pytest.raises(pol.PolicyError):
        pol.Policy.load(path)


def test_the_served_weights_are_small_and_say_where_they_come_from() -> None:
    path = pol.DEFAULT_WEIGHTS
    assert path.stat().st_size <= 20 * 2**20
    meta = pol.served().meta
    assert meta["parameters"] == sum(a.size for a in pol.served().w.values())
    assert "phoenix3p_mjlog" in meta["data"]["games"] and meta["data"]["validation_day"] == "2026-01-22"
    assert meta["training"]["commands"] and meta["training"]["steps"] > 0
    assert meta["numpy_check"]["max_abs_diff"] < 1e-3


def _play(seed: int, rules: Rules, bots: list[LearnedBot]) -> tuple[Match, list[str]]:
    match = Match(seed, rules)
    statuses = []

    def tell(events: list[Event]) -> None:
        for e in events:
            for s, bot in enumerate(bots):
                bot.observe(redact(e, s))

    tell(match.events)
    while not match.finished:
        seat = match.awaiting()[0]
        answer = ask(bots[seat], match.legal_actions(seat))
        statuses.append(answer.status)
        tell(match.apply(seat, answer.action))
        match.check_invariants()
    return match, statuses


@pytest.mark.slow
def test_the_learned_policy_plays_legally() -> None:
    for seed, red in ((41, True), (42, False)):
        bots = [LearnedBot(s, seed) for s in range(3)]
        match, statuses = _play(seed, Rules(length="east", red_fives=red), bots)
        assert match.finished and statuses and set(statuses) == {"ok"}
        probabilities = bots[0].last_probabilities
        assert probabilities and abs(sum(probabilities.values()) - 1) < 1e-5


def test_same_events_same_decisions_whatever_the_weights() -> None:
    rules = Rules(length="one-hand")
    policy = _random_policy(seed=3)
    first, _ = _play(7, rules, [LearnedBot(s, 0, policy) for s in range(3)])
    second, _ = _play(7, rules, [LearnedBot(s, 99, policy) for s in range(3)])
    assert first.events == second.events  # the seed plays no part


class _Agreement:
    """A ``dataset.Watcher``: one master per seat, counting the humans' plain discards it matches."""

    def __init__(self) -> None:
        self.bots = [LearnedBot(s) for s in range(3)]
        self.discards = self.same = 0

    def observe(self, seat: int, event: Event) -> None:
        self.bots[seat].observe(event)

    def decision(self, seat: int, legal: LegalActions, human: Action, bits: int) -> None:
        answer = self.bots[seat].decide(legal)
        assert answer in legal
        if isinstance(human, Discard) and not human.riichi:
            self.discards += 1
            plain = isinstance(answer, Discard) and not answer.riichi
            self.same += plain and kind_of(answer.tile) == kind_of(human.tile)


@pytest.mark.slow
def test_on_the_validation_day_the_master_discards_like_the_humans(shared_testdata: Path) -> None:
    """Games of 2026-01-22, never trained or tuned on (the Expert matches about 52% here)."""
    files = sorted((shared_testdata / "phoenix3p_mjlog").glob("20260122*.xml.gz"))[:3]
    if not files:
        pytest.skip(f"no validation-day mjlog games in {shared_testdata / 'phoenix3p_mjlog'}")
    watch = _Agreement()
    for path in files:
        text = mjlog.gunzip(path.read_bytes(), max_bytes=dataset.GZIP_LIMIT, source=path.name).decode("utf-8")
        dataset.record_samples(mjlog.loads(text, source=path.name), 0, dataset.Samples(), watch)
    assert watch.discards > 500
    assert watch.same / watch.discards >= 0.6, (watch.same, watch.discards)
