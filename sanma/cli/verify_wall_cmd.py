"""``sanma verify-wall``: check a match's walls with sanma-fair-v2 (``docs/engine.md``).

Two ways in, both printing one JSON object (``ok`` and each hand ``ok``/``mismatch``):

* ``sanma verify-wall LOG.jsonl``: a stored match log (the history's ``log.jsonl``
  download of an ended match: one stored event per line, the seed and salt included).  Each
  hand's wall is rebuilt with sanma-wall-v1 from the seed and checked against the hand's
  ``wall_digest`` and every tile the log shows; ``--match-commitment`` also checks what the
  server committed to.
* ``sanma verify-wall --seed N --salt S --match-commitment C --hands K``: the values the
  match-end ``fair_seed`` frame revealed; ``--wall-digests``, ``--hand-commitments`` and
  ``--hand-salts`` (comma-separated, hand 0 first) are checked against the walls rebuilt
  from the seed.  Without ``--salt``: the salt derived from the seed, which only matches
  played before sanma-fair-v2 (no salt stored) used.

Exit status: 0 every check passed, 1 a mismatch, 2 unreadable input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sanma.engine import fairness as fair
from sanma.engine.errors import SanmaError
from sanma.engine.events import Event, HandStarted, MatchStarted
from sanma.engine.wall import WALL_ALGORITHM, deal_from_seed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``sanma verify-wall``."""
    parser.add_argument("log", nargs="?", metavar="LOG", help="an ended match's log.jsonl download")
    parser.add_argument("--seed", type=int, help="the seed the match-end fair_seed frame revealed (without LOG)")
    parser.add_argument(
        "--salt", help="the revealed match salt (default: derived from the seed, as matches before sanma-fair-v2)"
    )
    parser.add_argument("--match-commitment", help="the commitment sent at the match's start")
    parser.add_argument("--hands", type=int, default=0, help="how many hands to rebuild (without LOG)")
    parser.add_argument("--wall-digests", default="", help="each hand's wall_digest, comma-separated")
    parser.add_argument("--hand-commitments", default="", help="each hand's hand_commitment, comma-separated")
    parser.add_argument(
        "--hand-salts", default="", help="each hand's revealed salt, comma-separated (default: derived from --salt)"
    )


def _read_log(path: str) -> list[Event]:
    from sanma.server.codec import event_from_store  # the stored form's one reader

    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SanmaError(f"cannot read {path}: {exc}") from None
    events = []
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                events.append(event_from_store(json.loads(line)))
            except ValueError as exc:
                raise SanmaError(f"{path}:{n}: not a stored event ({exc})") from None
    if not events or not isinstance(events[0], MatchStarted):
        raise SanmaError(f"{path}: a match log starts with MatchStarted")
    return events


def check_log(events: list[Event], commitment: str | None) -> dict[str, Any]:
    """The report on a stored log (see the module's text)."""
    start = events[0]
    assert isinstance(start, MatchStarted)
    if start.wall_algorithm != WALL_ALGORITHM:
        raise SanmaError(f"walls by {start.wall_algorithm!r} cannot be rebuilt (only {WALL_ALGORITHM})")
    salt = fair.salt_of(start)
    hands = []
    for k, hand in enumerate(fair.hand_events(events)):
        first = hand[0]
        assert isinstance(first, HandStarted)
        hs = fair.hand_salt(salt, k)
        deal = deal_from_seed(start.seed, k)
        hands.append(fair.check_hand(k, deal, hs, fair.hand_commitment(hs, first.wall_digest), first.wall_digest, hand))
    expected = fair.match_commitment(salt, start.seed)
    return _report(start.seed, salt, expected, commitment, hands)


def check_values(args: argparse.Namespace) -> dict[str, Any]:
    """The report on revealed values (see the module's text)."""
    if args.seed is None or args.match_commitment is None:
        raise SanmaError("give a LOG, or --seed and --match-commitment")
    salt = args.salt or fair.derived_salt(args.seed)
    digests = [d for d in args.wall_digests.split(",") if d]
    commitments = [c for c in args.hand_commitments.split(",") if c]
    salts = [s for s in args.hand_salts.split(",") if s]
    count = max(args.hands, len(digests), len(commitments), len(salts))
    deals = [deal_from_seed(args.seed, k) for k in range(count)]
    hands = fair.check_match(args.seed, salt, args.match_commitment, deals)
    for k, deal in enumerate(deals):
        problems = list(hands[k].problems)
        if k < len(digests) and deal.digest() != digests[k]:
            problems.append("the wall rebuilt from the seed does not hash to the given wall_digest")
        salt_of_hand = salts[k] if k < len(salts) else fair.hand_salt(salt, k)
        if k < len(commitments) and fair.hand_commitment(salt_of_hand, deal.digest()) != commitments[k]:
            problems.append("the hand commitment does not open with the wall rebuilt from the seed")
        hands[k] = fair.HandCheck(k, not problems, tuple(problems))
    return _report(args.seed, salt, fair.match_commitment(salt, args.seed), args.match_commitment, hands)


def _report(seed: int, salt: str, expected: str, given: str | None, hands: list[fair.HandCheck]) -> dict[str, Any]:
    opens = given is None or given == expected
    return {
        "ok": opens and all(h.ok for h in hands),
        "algorithm": fair.FAIR_VERSION,
        "seed": seed,
        "salt": salt,
        "match_commitment": expected,
        "match_commitment_opens": opens if given is not None else None,
        "hands": [h.to_json() for h in hands],
    }


def run(args: argparse.Namespace) -> int:
    """Check and print the report; 0 all ok, 1 a mismatch, 2 bad input."""
    try:
        report = check_log(_read_log(args.log), args.match_commitment) if args.log is not None else check_values(args)
    except SanmaError as exc:
        print(json.dumps({"ok": False, "error": str(exc)}))
        return 2
    print(json.dumps(report))
    return 0 if report["ok"] else 1
