"""The server's log lines (``docs/server.md``, "Logs"): text for people by default, or one JSON
object per line (``SANMA_LOG_FORMAT=json``) for a log collector.

A line of note carries its fields in ``extra`` (``log.info("room %s: match ended", id,
extra={"event": "match_ended", "match": id})``): the text line shows the message alone, the JSON
line the message and every field.  No line holds a token, a token's hash or a whole e-mail
address: the code that logs never passes them (``mail.masked`` hides an address);
``tests/test_metrics.py`` greps a served match's log for them.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

# What every LogRecord has: the rest of its attributes are the fields a call passed in ``extra``.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``,
    the record's ``extra`` fields, and ``traceback`` when it has one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        elif record.stack_info:
            line["traceback"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def configure(log_format: str, level: int = logging.INFO) -> None:
    """Send the server's lines (``sanma.*`` at ``level``, everything else at WARNING) to standard
    error in ``log_format`` (``text`` or ``json``).  With ``json`` uvicorn's own lines come
    through here too: serve it with ``log_config=None`` (``cli/serve_cmd.py``)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_sanma", False)]:
        root.removeHandler(old)
    handler._sanma = True  # type: ignore[attr-defined]  # configure() again replaces it
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("sanma").setLevel(level)
