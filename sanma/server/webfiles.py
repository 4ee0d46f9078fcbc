"""The browser client's files from memory (pure ASGI, in front of the routes).

The first table of a fresh visit asks for about 25 small files at once.  Starlette's
``StaticFiles`` behind FastAPI's routes spent about 3.5 ms of the one event loop on each (every
route is tried before the mount, and the file is stat'ed, opened and read in worker threads,
one hop each), so the player's own API call queued behind them.  Here the files known at start
are answered from memory, revalidated by one ``stat`` per request so that an edited file is
served fresh; anything else (a file added since, a miss) goes on to the app, where the
``StaticFiles`` mount answers exactly as before.
"""

from __future__ import annotations

import email.utils
import hashlib
import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

# Files larger than this are left to StaticFiles (none of the client's are near it).
MAX_CACHED_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class _File:
    stamp: tuple[int, int]  # (mtime_ns, size) when read
    body: bytes
    headers: list[tuple[bytes, bytes]]
    etag: bytes


# Types the client ships that Python's own table may lack (3.11 knows no .woff2: the answer then
# hung on the host's /etc/mime.types, and a font sent as octet-stream is refused by some browsers).
_TYPES = {".woff2": "font/woff2"}


def _content_type(path: Path) -> bytes:
    kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
        kind += "; charset=utf-8"
    return kind.encode()


def _read(path: Path) -> _File | None:
    try:
        st = path.stat()
        if st.st_size > MAX_CACHED_BYTES:
            return None
        body = path.read_bytes()
    except OSError:
        return None
    etag = b'"' + hashlib.blake2b(body, digest_size=12).hexdigest().encode() + b'"'
    headers = [
        (b"content-type", _content_type(path)),
        (b"content-length", str(len(body)).encode()),
        (b"etag", etag),
        (b"last-modified", email.utils.formatdate(st.st_mtime, usegmt=True).encode()),
    ]
    return _File((st.st_mtime_ns, st.st_size), body, headers, etag)


def _url_paths(directory: Path) -> dict[str, Path]:
    """URL path -> file, for every file under ``directory``; a folder's ``index.html`` also
    answers for the folder (``/`` is ``/index.html``)."""
    paths: dict[str, Path] = {}
    for path in sorted(directory.rglob("*")):
        if not path.is_file():
            continue
        url = "/" + path.relative_to(directory).as_posix()
        paths[url] = path
        if path.name == "index.html":
            paths[url.removesuffix("index.html")] = path
    return paths


class WebFiles:
    """Answer GET and HEAD for the files under ``directory`` that existed at start; pass
    everything else (``/api``, ``/ws``, unknown paths, other methods) on to ``app``."""

    def __init__(self, app: ASGIApp, directory: Path) -> None:
        self.app = app
        self.paths = _url_paths(directory) if directory.is_dir() else {}
        self.files: dict[Path, _File] = {}

    def _current(self, path: Path) -> _File | None:
        cached = self.files.get(path)
        try:
            st = os.stat(path)
        except OSError:
            return None
        if cached is None or cached.stamp != (st.st_mtime_ns, st.st_size):
            cached = _read(path)
            if cached is None:
                return None
            self.files[path] = cached
        return cached

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = self.paths.get(scope["path"]) if scope["type"] == "http" else None
        file = self._current(path) if path is not None and scope["method"] in ("GET", "HEAD") else None
        if file is None:
            await self.app(scope, receive, send)
            return
        fresh = any(k == b"if-none-match" and file.etag in v for k, v in scope["headers"])
        status, headers = (304, [(b"etag", file.etag)]) if fresh else (200, file.headers)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        body = b"" if fresh or scope["method"] == "HEAD" else file.body
        await send({"type": "http.response.body", "body": body})
