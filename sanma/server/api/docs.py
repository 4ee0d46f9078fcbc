"""``/api/docs``: the OpenAPI pages (Swagger UI) from local files, under the site's content policy.

FastAPI's own page loads Swagger UI from a CDN and starts it with an inline script, so it
needs a policy that lets both in, on the origin whose localStorage holds the guest token.
This page is ours instead: the script and style come from the pinned ``fastapi-offline``
package (its copy of Swagger UI 5, the version FastAPI's page loads; nothing copied into the
repository; only its files are used), the start-up is a script file of this module,
and every answer carries the same ``Content-Security-Policy`` as the game (``app.py``).
``SANMA_API_DOCS=0`` turns the pages off (the schema stays at ``/api/openapi.json``); without
the package they are off too.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from sanma.server.api.deps import ApiError

try:
    import fastapi_offline
except ImportError:  # pragma: no cover - the package is a pinned dependency
    STATIC: Path | None = None
else:
    STATIC = Path(fastapi_offline.__file__).resolve().parent / "static"

router = APIRouter(prefix="/api/docs", include_in_schema=False)

# The files the page uses, and nothing else of the package.
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
}

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sanma API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
<link rel="icon" href="data:,">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/start.js"></script>
</body>
</html>
"""

# No online validator (an image from elsewhere), no configuration from the query string.
START = """"use strict";
window.ui = SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  queryConfigEnabled: false,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
"""

# The assets change only with the pinned package: a browser may keep them for a day.
_CACHE = {"cache-control": "public, max-age=86400"}


def available() -> bool:
    """Whether the assets are installed."""
    return STATIC is not None and all((STATIC / name).is_file() for name in ASSETS)


@router.get("")
async def page() -> HTMLResponse:
    """The Swagger UI page of ``/api/openapi.json``."""
    return HTMLResponse(PAGE)


@router.get("/start.js")
async def start() -> Response:
    """The page's start-up script (a file: the content policy allows no inline script)."""
    return Response(START, media_type="text/javascript; charset=utf-8")


@router.get("/assets/{name}")
async def asset(name: str) -> Response:
    """One of ``ASSETS`` from the installed package (404 for any other name)."""
    media = ASSETS.get(name)
    if media is None or STATIC is None:
        raise ApiError(404, "not_found", "no such file")
    return FileResponse(STATIC / name, media_type=media, headers=_CACHE)
