"""``sanma admin``: the operator's actions on a running server (``docs/server.md``, "Administration").

Talks to the admin routes of one ``sanma serve`` (its metrics port, with ``SANMA_ADMIN_TOKEN``
set); in a group of processes any one of them answers for all::

    sanma admin --url http://127.0.0.1:9100 rooms
    sanma admin matches --json
    sanma admin end MATCH --reason "reported stuck"
    sanma admin close ROOM
    sanma admin bar GUEST --reason "abuse in chat"
    sanma admin unbar GUEST

The token comes from ``--token`` or ``SANMA_ADMIN_TOKEN``, the URL from ``--url`` or
``SANMA_ADMIN_URL`` (default ``http://127.0.0.1:$SANMA_METRICS_PORT``).  Prints a plain table
(or the server's JSON with ``--json``).  Exit status: 0 done, 1 refused (an unknown match,
room or guest, a match already ended, a wrong token), 2 bad input or no server answering.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote

ACTIONS = ("rooms", "matches", "end", "close", "bar", "unbar")
TIMEOUT_S = 30.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``sanma admin``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  sanma admin --url http://127.0.0.1:9100 rooms     (SANMA_ADMIN_TOKEN in the environment)\n"
        "  sanma admin matches --json\n"
        '  sanma admin end MATCH --reason "stuck"\n'
        "  sanma admin close ROOM\n"
        '  sanma admin bar GUEST --reason "abuse"; sanma admin unbar GUEST\n'
        "exit status: 0 done, 1 refused (unknown match, room or guest; wrong token), 2 bad input or no answer"
    )
    parser.add_argument("action", choices=ACTIONS, help="what to do")
    parser.add_argument("target", nargs="?", help="the MATCH id (end), ROOM code (close) or GUEST id (bar, unbar)")
    parser.add_argument("--reason", default="", help="why (written in the server's log line; kept with a bar)")
    parser.add_argument("--url", help="the server's metrics port (SANMA_ADMIN_URL; default http://127.0.0.1:PORT)")
    parser.add_argument("--token", help="the admin token (default: SANMA_ADMIN_TOKEN)")
    parser.add_argument("--json", action="store_true", help="print the server's JSON answer")


def run(args: argparse.Namespace) -> int:
    """Send the request and print the answer; see the module's text for the exit status."""
    needs_target = args.action in ("end", "close", "bar", "unbar")
    if needs_target != bool(args.target):
        what = "needs a target" if needs_target else "takes no target"
        print(f"sanma admin: {args.action} {what}", file=sys.stderr)
        return 2
    token = args.token or os.environ.get("SANMA_ADMIN_TOKEN", "")
    url = _base_url(args.url)
    if not token or url is None:
        missing = "a token (--token or SANMA_ADMIN_TOKEN)" if not token else "--url (or SANMA_METRICS_PORT)"
        print(f"sanma admin: give {missing}", file=sys.stderr)
        return 2
    method, path = _route(args.action, args.target)
    body = None if method == "GET" else json.dumps({"reason": args.reason}).encode()
    request = urllib.request.Request(url + path, data=body, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
            answer = json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        refused = _json_or_none(exc.read())
        detail = refused.get("detail", exc.reason) if isinstance(refused, dict) else exc.reason
        code = refused.get("error", exc.code) if isinstance(refused, dict) else exc.code
        print(f"sanma admin: {args.action} refused ({code}): {detail}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError, ValueError) as exc:
        print(f"sanma admin: no answer from {url}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(answer, indent=2) if args.json else _text(args.action, answer))
    return 0


def _base_url(given: str | None) -> str | None:
    url = given or os.environ.get("SANMA_ADMIN_URL", "")
    if not url:
        port = os.environ.get("SANMA_METRICS_PORT", "").strip()
        if not port or port == "0":
            return None
        url = f"http://127.0.0.1:{port}"
    return url.rstrip("/")


def _route(action: str, target: str | None) -> tuple[str, str]:
    if action in ("rooms", "matches"):
        return "GET", f"/admin/{action}"
    assert target is not None
    where = {"end": "matches", "close": "rooms", "bar": "guests", "unbar": "guests"}[action]
    return "POST", f"/admin/{where}/{quote(target, safe='')}/{action}"


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _text(action: str, answer: dict[str, Any]) -> str:
    """The answer as a plain table (lists) or one line (actions)."""
    if action == "rooms":
        rows = [
            [r["code"], r["status"], r["host"], " ".join(s or "-" for s in r["seats"]), r["match"] or "-"]
            for r in answer["rooms"]
        ]
        return _table(["ROOM", "STATUS", "HOST", "SEATS", "MATCH"], rows)
    if action == "matches":
        rows = [
            [m["match"], m["kind"], str(m["events"]), m["node"] or "-", " ".join(m["seats"]), m["updated_at"][:19]]
            for m in answer["matches"]
        ]
        return _table(["MATCH", "KIND", "EVENTS", "NODE", "SEATS", "UPDATED"], rows)
    return " ".join(f"{key}={value}" for key, value in answer.items())


def _table(header: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell; "(none)" under the header when there are no rows."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=False)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in [header, *rows]]
    if not rows:
        lines.append("(none)")
    return "\n".join(lines)
