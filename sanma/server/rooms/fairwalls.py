"""Provably fair walls on a table (sanma-fair-v1, ``docs/protocol.md``, "Fair walls"): the
frames that go right after an event, the same for every seat and spectator."""

from __future__ import annotations

from sanma.engine import fairness
from sanma.engine.events import Event, HandAborted, HandDrawn, HandStarted, HandWon, MatchEnded, MatchStarted
from sanma.engine.wall import WALL_ALGORITHM, deal_from_seed
from sanma.server import protocol


class FairWalls:
    """The fair-wall frames of one match (encoded once), by the version of the event they
    follow: commitments as the match and each hand start, a hand's deal and salt once it is
    over, the seed and salt once the match is.  Only walls dealt by sanma-wall-v1 from the
    seed are committed to (a scripted deal has nothing to prove)."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._salt = fairness.match_salt(seed)
        self._after: dict[int, list[str]] = {}
        self._hands = 0  # hands started so far
        self._open = False  # the hand in play is the seeded deal and not yet revealed
        self._seeded = False  # the match's walls are dealt from its seed

    def after(self, v: int) -> list[str]:
        """The frames that follow event ``v`` (often none)."""
        return self._after.get(v, [])

    def observe(self, v: int, event: Event) -> None:
        """Event ``v`` happened: keep the frames that go after it."""
        frames = self._frames_for(event)
        if frames:
            self._after[v] = [f.encode() for f in frames]

    def _frames_for(self, event: Event) -> list[protocol.Frame]:
        seed, salt = self._seed, self._salt
        if isinstance(event, MatchStarted):
            self._seeded = event.wall_algorithm == WALL_ALGORITHM
            return [protocol.FairMatch(fairness.match_commitment(salt, seed))] if self._seeded else []
        if isinstance(event, HandStarted):
            k = self._hands
            self._hands += 1
            self._open = self._seeded and deal_from_seed(seed, k).digest() == event.wall_digest
            if not self._open:
                return []
            commitment = fairness.hand_commitment(fairness.hand_salt(salt, k), event.wall_digest)
            return [protocol.FairHand(k, event.wall_digest, commitment)]
        if isinstance(event, HandWon | HandDrawn | HandAborted) and self._open:
            self._open = False  # a double ron's second HandWon reveals nothing more
            k = self._hands - 1
            deal = fairness.deal_to_json(deal_from_seed(seed, k))
            return [protocol.FairReveal(k, fairness.hand_salt(salt, k), deal)]
        if isinstance(event, MatchEnded) and self._seeded:
            return [protocol.FairSeed(seed, salt, fairness.match_commitment(salt, seed), self._hands)]
        return []

    def interleave(self, frames: list[str], first_v: int, last_v: int) -> list[str]:
        """Events ``first_v..last_v`` of ``frames`` (index = v - 1), each followed by its frames."""
        out: list[str] = []
        start = first_v
        for v in sorted(k for k in self._after if first_v <= k <= last_v):
            out += frames[start - 1 : v]
            out += self._after[v]
            start = v + 1
        out += frames[start - 1 : last_v]
        return out
