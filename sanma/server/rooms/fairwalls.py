"""Provably fair walls on a table (sanma-fair-v2, ``docs/protocol.md``, "Fair walls"): the
frames that go right after an event, the same for every seat and spectator.  Commitments go
out as the match and each hand start; the seed and every salt only after ``MatchEnded``."""

from __future__ import annotations

import secrets

from sanma.engine import fairness
from sanma.engine.events import Event, HandStarted, MatchEnded, MatchStarted
from sanma.engine.wall import WALL_ALGORITHM, deal_from_seed
from sanma.server import protocol


def new_salt() -> str:
    """A match's fair-wall salt: 128 random bits, drawn once as the match is created and kept
    in its ``MatchStarted`` (so a room rebuilt from the store commits to the same values)."""
    return secrets.token_hex(fairness.SALT_HEX // 2)


class FairWalls:
    """The fair-wall frames of one match (encoded once), by the version of the event they
    follow: commitments as the match and each hand start, the seed and all salts once the
    match is over.  Only walls dealt by sanma-wall-v1 from the seed are committed to (a
    scripted deal has nothing to prove).  The salt comes with ``MatchStarted``."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._salt = ""  # set by MatchStarted
        self._after: dict[int, list[str]] = {}
        self._hands = 0  # hands started so far
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
        seed = self._seed
        if isinstance(event, MatchStarted):
            self._seeded = event.wall_algorithm == WALL_ALGORITHM
            self._salt = fairness.salt_of(event)
            return [protocol.FairMatch(fairness.match_commitment(self._salt, seed))] if self._seeded else []
        if isinstance(event, HandStarted):
            k = self._hands
            self._hands += 1
            if not self._seeded or deal_from_seed(seed, k).digest() != event.wall_digest:
                return []
            commitment = fairness.hand_commitment(fairness.hand_salt(self._salt, k), event.wall_digest)
            return [protocol.FairHand(k, event.wall_digest, commitment)]
        if isinstance(event, MatchEnded) and self._seeded:
            salts = tuple(fairness.hand_salt(self._salt, k) for k in range(self._hands))
            return [protocol.FairSeed(seed, self._salt, fairness.match_commitment(self._salt, seed), salts)]
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
