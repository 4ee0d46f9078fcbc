"""``sanma review LOG --seat N``: the Mahjong master's review of one seat's match, as JSON.

``LOG`` is a finished match in the store form (``sanma.server.codec``): a JSON list of
events, an object with an ``events`` list, or one event per line.  The report lists every
decision of the seat with the master's choice and the expected loss of the choice made, in
placement points, the biggest first (``sanma.bots.review``).  A log that cannot be read is
a typed error on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sanma.engine.errors import InvalidLog, SanmaError
from sanma.engine.events import Event


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``LOG`` and ``--seat``."""
    parser.add_argument("log", metavar="LOG", help="a finished match log (store-form JSON events)")
    parser.add_argument("--seat", type=int, required=True, choices=(0, 1, 2), help="the seat to review")
    parser.add_argument("--top", type=int, default=None, help="list only the N biggest mistakes")


def read_log(text: str) -> list[Event]:
    """The events of a store-form log (a list, ``{"events": [...]}`` or JSON lines)."""
    from sanma.server.codec import event_from_store

    data: Any
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise InvalidLog(f"not JSON: {exc.msg} (line {exc.lineno})") from None
    if isinstance(data, dict):
        data = data.get("events")
    if not isinstance(data, list):
        raise InvalidLog("a log is a list of events or an object with an 'events' list")
    return [event_from_store(e) for e in data]


def run(args: argparse.Namespace) -> int:
    """Print the review; exit 2 on a log that cannot be read."""
    from sanma.bots.review import review

    try:
        events = read_log(Path(args.log).read_text(encoding="utf-8"))
        report = review(events, args.seat).as_dict()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"sanma review: cannot read {args.log}: {exc}", file=sys.stderr)
        return 2
    except SanmaError as exc:
        print(f"sanma review: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if args.top is not None:
        report["mistakes"] = report["mistakes"][: args.top]
    json.dump(report, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
