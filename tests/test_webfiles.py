"""The browser client's files served from memory (server/webfiles.py): the bytes on disk with
their type, validators and the security headers, a revalidation answered 304, an edited file
served fresh, and everything that is not one of the files (the API, unknown paths, other
methods, files added after start) left to the app behind, as before."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from sanma.server.app import WEB_DIR
from sanma.server.webfiles import WebFiles
from tests.services import ServeProcess, free_port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServeProcess]:
    proc = ServeProcess(free_port(), {"SANMA_DATA_DIR": str(tmp_path / "data")}, tmp_path / "serve.log")
    yield proc
    proc.stop()


TYPES = {
    "/": "text/html; charset=utf-8",
    "/src/main.js": "text/javascript; charset=utf-8",
    "/assets/style.css": "text/css; charset=utf-8",
    "/src/i18n/en.json": "application/json; charset=utf-8",
    "/assets/icon.svg": "image/svg+xml",
}


@pytest.mark.slow
def test_the_client_files_are_the_bytes_on_disk_with_type_validators_and_policy(server: ServeProcess) -> None:
    for path, kind in TYPES.items():
        r = httpx.get(server.http + path)
        on_disk = (WEB_DIR / (path.lstrip("/") or "index.html")).read_bytes()
        assert r.status_code == 200 and r.content == on_disk, path
        assert r.headers["content-type"] == kind, path
        assert int(r.headers["content-length"]) == len(on_disk)
        assert "script-src 'self'" in r.headers["content-security-policy"], path
        again = httpx.get(server.http + path, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == r.headers["etag"]
        head = httpx.head(server.http + path)
        assert head.status_code == 200 and head.content == b"" and head.headers["etag"] == r.headers["etag"]
    # Not client files: the API and a path that is not there keep their answers.
    assert httpx.get(server.http + "/api/health").status_code == 200
    missing = httpx.get(server.http + "/src/no-such-module.js")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    assert httpx.get(server.http + "/src/../pyproject.toml").status_code == 404


def _fallback(request: object) -> PlainTextResponse:
    return PlainTextResponse("from the app", status_code=404)


class _Client:
    """Requests to ``WebFiles`` over ``directory`` in front of an app that answers the rest."""

    def __init__(self, directory: Path) -> None:
        app = Starlette(routes=[Route("/{path:path}", _fallback, methods=["GET", "HEAD", "POST"])])
        self.transport = httpx.ASGITransport(app=WebFiles(app, directory))

    def request(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        async def go() -> httpx.Response:
            async with httpx.AsyncClient(transport=self.transport, base_url="http://test") as client:
                return await client.request(method, path, **kwargs)  # type: ignore[arg-type]

        return asyncio.run(go())

    def get(self, path: str, **kwargs: object) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str) -> httpx.Response:
        return self.request("POST", path)


def _client(directory: Path) -> _Client:
    return _Client(directory)


def test_an_edited_file_is_served_fresh_and_new_files_or_methods_go_to_the_app(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<p>one</p>")
    (tmp_path / "src").mkdir()
    module = tmp_path / "src" / "a.js"
    module.write_text("export const a = 1;")
    client = _client(tmp_path)
    first = client.get("/src/a.js")
    assert first.text == "export const a = 1;" and client.get("/").text == "<p>one</p>"
    module.write_text("export const a = 22;")
    os.utime(module, ns=(1, 2_000_000_000_000_000_000))  # a changed stamp, whatever the clock's resolution
    second = client.get("/src/a.js")
    assert second.text == "export const a = 22;" and second.headers["etag"] != first.headers["etag"]
    assert client.get("/src/a.js", headers={"If-None-Match": first.headers["etag"]}).status_code == 200
    (tmp_path / "src" / "b.js").write_text("export const b = 2;")  # after start: the app's
    assert client.get("/src/b.js").text == "from the app"
    assert client.post("/src/a.js").text == "from the app"
    module.unlink()  # gone: the app answers (its 404)
    assert client.get("/src/a.js").text == "from the app"
