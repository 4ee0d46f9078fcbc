"""What every router shares: the app's services, the signed-in guest, the error shape."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine

from sanma.server.rooms import RoomRegistry
from sanma.server.settings import Settings
from sanma.store import guests as guest_store


@dataclass(frozen=True, slots=True)
class Services:
    """Everything a route may use, built once by ``create_app`` (``app.state.services``)."""

    settings: Settings
    engine: Engine
    rooms: RoomRegistry
    seed_source: Callable[[], int]
    seat_source: Callable[[], int]


class ApiError(Exception):
    """An answer other than success: ``status`` with ``{"error": code, "detail": detail}``."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail

    def body(self) -> dict[str, Any]:
        """The JSON body of the answer."""
        return {"error": self.code, "detail": self.detail}


# Documented in the OpenAPI schema for every route that raises them.
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "the body is not JSON (`bad_json`)"},
    401: {"description": "no or unknown bearer token (`unauthorized`)"},
    413: {"description": "the body is too large (`too_large`)"},
    422: {"description": "the body does not match the schema (`bad_schema`)"},
    429: {"description": "too many requests (`rate_limited`)"},
}


def services(request: Request) -> Services:
    """The app's services."""
    found: Services = request.app.state.services
    return found


T = TypeVar("T")


def app_object(request: Request, name: str, make: Callable[[Services], T]) -> T:
    """The app's one ``name`` object (the meters, the lobby, the account services), made from
    its services by the first request that needs it and kept in ``app.state``."""
    found: T | None = getattr(request.app.state, name, None)
    if found is None:
        found = make(services(request))
        setattr(request.app.state, name, found)
    return found


_bearer = HTTPBearer(auto_error=False, description="the guest token from `POST /api/guest`")


async def current_guest(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> str:
    """The id of the guest whose token the request carries (401 otherwise; 403 ``barred`` for a
    guest the operator barred, ``sanma admin bar``)."""
    if credentials is None or not credentials.credentials:
        raise ApiError(401, "unauthorized", "send Authorization: Bearer <guest token>")
    engine = services(request).engine
    guest = await asyncio.to_thread(guest_store.signed_in, engine, credentials.credentials.strip())
    if guest is None:
        raise ApiError(401, "unauthorized", "unknown guest token")
    if guest.barred:
        raise ApiError(403, "barred", "this guest was barred by the server's operator")
    return guest.id


Guest = Annotated[str, Depends(current_guest)]
"""A route parameter: the signed-in guest's id."""

AppServices = Annotated[Services, Depends(services)]
"""A route parameter: the app's services."""
