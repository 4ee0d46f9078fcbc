"""``sanma serve``: run the game server (settings from ``SANMA_*``; flags override them)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``sanma serve``."""
    parser.add_argument("--host", help="address to listen on (SANMA_HOST, default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (SANMA_PORT, default 8000)")
    parser.add_argument(
        "--data-dir", type=Path, help="folder of the default SQLite file (SANMA_DATA_DIR, default data)"
    )
    parser.add_argument("--database-url", help="SQLAlchemy URL (SANMA_DATABASE_URL, default sqlite under --data-dir)")
    parser.add_argument("--bot-delay", type=float, help="seconds a bot waits before its turn (SANMA_BOT_DELAY)")


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with ``create_app`` (``server/serving.py``: no proxy headers, header and
    keep-alive deadlines); returns when the server stops."""
    from sanma.engine.errors import SanmaError
    from sanma.server.app import create_app
    from sanma.server.settings import Settings

    try:
        settings = Settings.from_env()
    except SanmaError as exc:
        print(f"sanma serve: {exc}", file=sys.stderr)
        return 2
    changes = {
        "host": args.host,
        "port": args.port,
        "data_dir": args.data_dir,
        "database_url": args.database_url,
        "bot_delay_s": args.bot_delay,
    }
    settings = replace(settings, **{k: v for k, v in changes.items() if v is not None})
    from sanma.server import logformat
    from sanma.store.backup import serving_lock

    logformat.configure(settings.log_format)

    with serving_lock(settings.db_url):  # ``sanma restore`` refuses while a server holds it
        app = create_app(settings)
        from sanma.server import gcpolicy

        gcpolicy.start(settings.gc_freeze_s, settings.gc_collect_s)  # on by default; SANMA_GC_FREEZE=0 turns it off
        if settings.log_format == "text":  # JSON lines: the app logs "server started" instead
            print(f"Sanma server on {settings.url} (database {settings.db_url})", flush=True)
        from sanma.server.serving import serve

        # JSON lines: uvicorn's own go through the same handler (it configures none of its own).
        serve(app, settings, **({"log_config": None} if settings.log_format == "json" else {}))
    return 0
