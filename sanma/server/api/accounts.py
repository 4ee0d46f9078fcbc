"""Accounts: profile and display name, e-mail link and recovery, daily check-in, equipment,
the export of everything held about the account and its deletion.

Codes never tell whether an address is registered: asking for one always answers
``202 {"sent": true}`` after the same work (a code row is written either way; the mail is
sent in the background, and only to an address that may receive it).  docs/accounts.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from email.message import EmailMessage
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import IntegrityError

from sanma.server import cosmetics, netaddr
from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest, Services, app_object, services
from sanma.server.bus import Bus
from sanma.server.limits import SharedLimiter
from sanma.server.mail import Lang, Mailer, Purpose, code_message, mailer_for, masked
from sanma.server.settings import Settings
from sanma.store import accounts as store
from sanma.store import guests as guest_store
from sanma.store import privacy

log = logging.getLogger("sanma.accounts")

NAME_MAX = 24
EMAIL_MAX = 254
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


# -- what the account routes share ----------------------------------------------------------


@dataclass
class AccountServices:
    """The limiters and the mailer, one set per app (made on first use)."""

    settings: Settings
    mailer: Mailer
    writes: SharedLimiter
    codes_by_address: SharedLimiter
    codes_by_client: SharedLimiter
    codes_by_guest: SharedLimiter
    checks_by_client: SharedLimiter
    # Mail being sent: kept so the tasks are not collected before they finish.
    sending: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    def for_settings(cls, settings: Settings, bus: Bus | None) -> AccountServices:
        """Everything from ``settings``; the limits are counted on ``bus`` (shared by the processes)."""
        hour = 3600.0
        return cls(
            settings=settings,
            mailer=mailer_for(settings),
            writes=SharedLimiter(bus, "writes", settings.account_writes_per_min, 60.0),
            codes_by_address=SharedLimiter(bus, "codes-address", settings.codes_per_address_per_h, hour),
            codes_by_client=SharedLimiter(bus, "codes-client", settings.codes_per_client_per_h, hour),
            codes_by_guest=SharedLimiter(bus, "codes-guest", settings.codes_per_guest_per_h, hour),
            checks_by_client=SharedLimiter(bus, "checks-client", settings.code_checks_per_client_per_h, hour),
        )

    def mail(self, purpose: Purpose, to: str, code: str, lang: Lang, *, deliver: bool = True) -> None:
        """Send the code in the background (the answer does not wait for SMTP).  With
        ``deliver=False`` the message is built and serialised just the same but goes nowhere:
        an unknown address costs the server the same work, so timing does not tell it apart."""
        message = code_message(self.settings.smtp_from, to, code, purpose, lang, self.settings.code_ttl_s)
        work = self._deliver(message) if deliver else self._serialise_only(message)
        task = asyncio.get_running_loop().create_task(work)
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    @staticmethod
    async def _serialise_only(message: EmailMessage) -> None:
        await asyncio.to_thread(message.as_bytes)

    async def _deliver(self, message: EmailMessage) -> None:
        try:
            await self.mailer.send(message)
        except Exception as exc:  # a failed delivery must not take the server down; the user asks again
            # Not the traceback: an SMTP refusal quotes the whole address.
            to, why = masked(str(message["To"])), masked(str(exc))
            log.error("could not send mail to %s: %s: %s", to, type(exc).__name__, why)


def account_services(request: Request) -> AccountServices:
    """The app's account services (created on the first request that needs them)."""
    return app_object(request, "accounts", lambda app: AccountServices.for_settings(app.settings, app.rooms.bus))


Accounts = Annotated[AccountServices, Depends(account_services)]


def client_key(request: Request) -> str:
    """The client's address as every per-address limit counts it (``netaddr.client_key``:
    the peer, or the right-most untrusted hop behind ``SANMA_TRUSTED_PROXIES``)."""
    return netaddr.client_key(request.scope, request.app.state.settings)


def requester_of(request: Request, guest: str | None) -> str:
    """Who asks for or tries a code: the signed-in guest, else the client address."""
    return f"guest:{guest}" if guest is not None else client_key(request)


async def limit_write(request: Request, accounts: AccountServices, guest: str | None) -> None:
    """Refuse (429) a write over the per-client or per-guest limit."""
    if not await accounts.writes.hit(client_key(request)) or (
        guest is not None and not await accounts.writes.hit(f"guest:{guest}")
    ):
        raise ApiError(429, "rate_limited", "too many requests; wait a minute")


_optional_bearer = HTTPBearer(auto_error=False, description="the guest token, when the browser has one")


async def optional_guest(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_optional_bearer)]
) -> str | None:
    """The signed-in guest, or ``None`` (no token or an unknown one)."""
    if credentials is None or not credentials.credentials:
        return None
    engine = services(request).engine
    return await asyncio.to_thread(guest_store.guest_for_token, engine, credentials.credentials.strip())


MaybeGuest = Annotated[str | None, Depends(optional_guest)]


# -- models ---------------------------------------------------------------------------------


class Profile(BaseModel):
    """The signed-in account as its owner sees it."""

    guest: str
    name: str | None = Field(description="display name; null: none chosen")
    email: str | None = Field(description="the linked address, masked (a***b@example.org); null: none")
    coins: int
    tile_back: str = Field(description="the equipped tile back (an item id of GET /api/shop)")
    cloth: str = Field(description="the equipped table cloth")
    owned: list[str] = Field(description="item ids the account may equip (free ones included)")
    day: date = Field(description="today, UTC: the check-in day")
    checked_in_today: bool
    streak: int = Field(description="consecutive check-in days up to the last check-in")
    next_checkin_coins: int = Field(description="coins the next check-in would grant")


class NameBody(BaseModel):
    """A display name: 1 to 24 characters after trimming, no control characters."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class EmailBody(BaseModel):
    """An address to send a code to, and the language of the mail."""

    model_config = ConfigDict(extra="forbid")
    email: str = Field(max_length=EMAIL_MAX)
    lang: Lang = "en"


class CodeBody(BaseModel):
    """An address and the code mailed to it."""

    model_config = ConfigDict(extra="forbid")
    email: str = Field(max_length=EMAIL_MAX)
    code: str = Field(max_length=32)


class Sent(BaseModel):
    """Always the same answer, whether or not the address is known."""

    sent: bool


class Recovered(BaseModel):
    """This browser's new token for the recovered account (the old one stops working)."""

    guest: str
    token: str


class CheckinResult(BaseModel):
    """``granted``: coins were added now; false: today was already claimed."""

    granted: bool
    day: date
    coins: int
    streak: int
    balance: int


class LedgerEntry(BaseModel):
    """One grant (positive) or spend (negative) of coins."""

    delta: int
    reason: str
    item: str | None
    at: datetime


class Ledger(BaseModel):
    """Every change of the balance; ``sum(delta) == balance``."""

    balance: int
    entries: list[LedgerEntry]


class EquipBody(BaseModel):
    """Wear ``item`` in ``slot`` (null: the default look)."""

    model_config = ConfigDict(extra="forbid")
    slot: Literal["tile_back", "cloth"]
    item: str | None = Field(default=None, max_length=32)


# -- values ---------------------------------------------------------------------------------


def clean_name(raw: str) -> str:
    """The display name to store: NFC, trimmed, 1..24 characters, no control or format
    characters (so no bidi overrides or zero-width tricks); ``ApiError`` otherwise."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise ApiError(422, "bad_name", f"a name has 1 to {NAME_MAX} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ApiError(422, "bad_name", "a name has no control characters")
    return name


def clean_email(raw: str) -> str:
    """The address, trimmed and lower-cased; ``ApiError`` unless it looks like one."""
    email = store.normalise_email(raw)
    if len(email) > EMAIL_MAX or not _EMAIL.match(email) or any(unicodedata.category(c)[0] == "C" for c in email):
        raise ApiError(422, "bad_email", "not an e-mail address")
    return email


def today() -> date:
    """The check-in day: the calendar date in UTC."""
    return datetime.now(UTC).date()


def profile_of(account: store.Account) -> Profile:
    """The answer for ``account``."""
    day = today()
    done = account.last_checkin == day
    running = account.last_checkin is not None and (day - account.last_checkin).days <= 1
    streak = account.streak if running else 0
    free = [i.id for i in cosmetics.CATALOGUE if i.price == 0]
    return Profile(
        guest=account.guest_id,
        name=account.display_name,
        email=account.email_hint,
        coins=account.coins,
        tile_back=account.tile_back or cosmetics.DEFAULTS["tile_back"],
        cloth=account.cloth or cosmetics.DEFAULTS["cloth"],
        owned=free + [i for i in account.owned if i not in free],
        day=day,
        checked_in_today=done,
        streak=streak,
        next_checkin_coins=store.checkin_reward(streak if done else streak + 1),
    )


async def load_profile(app: AppServices, guest: str) -> Profile:
    """The profile of ``guest``, read in a worker thread."""
    return profile_of(await asyncio.to_thread(store.get_account, app.engine, guest))


# -- routes ---------------------------------------------------------------------------------

router = APIRouter(prefix="/api/account", tags=["account"], responses=ERRORS)


@router.get("")
async def get_profile(guest: Guest, app: AppServices) -> Profile:
    """The signed-in account: name, masked e-mail, coins, equipment, check-in state."""
    return await load_profile(app, guest)


@router.post("/name", responses={422: {"description": "`bad_name`: empty, too long or control characters"}})
async def set_name(body: NameBody, guest: Guest, app: AppServices, accounts: Accounts, request: Request) -> Profile:
    """Choose the display name shown to others (1-24 characters after trimming)."""
    await limit_write(request, accounts, guest)
    name = clean_name(body.name)
    await asyncio.to_thread(store.set_display_name, app.engine, guest, name)
    return await load_profile(app, guest)


async def _limit_codes(
    request: Request, accounts: AccountServices, email: str, guest: str | None, account: str | None
) -> None:
    """Count one code asked for ``email``.  Nothing a stranger does can spend the owner's
    allowance: the account's own signed-in guest (``guest == account``) counts only on its own
    bucket; anyone else on the client's (per client address), the guest's, and the address's
    *for that client*, so that asking for codes to someone else's address from one network
    uses up that network's allowance only.  (Codes are bound to their asker as well:
    ``requester_of``, ``store.spend_code``.)"""
    if guest is not None and guest == account:
        if not await accounts.codes_by_guest.hit(guest):
            raise ApiError(429, "rate_limited", "too many codes asked for; wait and try again")
        return
    client = client_key(request)
    over = not await accounts.codes_by_client.hit(client)
    over = not await accounts.codes_by_address.hit(f"{store.email_hash(email)}:{client}") or over
    if guest is not None:
        over = not await accounts.codes_by_guest.hit(guest) or over
    if over:
        raise ApiError(429, "rate_limited", "too many codes asked for; wait and try again")


async def _send_code(
    request: Request,
    app: Services,
    accounts: AccountServices,
    purpose: Purpose,
    email: str,
    guest: str | None,
    owner: str | None,
    lang: Lang,
    deliver: bool = True,
) -> Sent:
    """Store a fresh one-time code for ``purpose`` (bound to ``owner``) and mail it to ``email``."""
    code = store.new_code()
    ttl, asker = accounts.settings.code_ttl_s, requester_of(request, guest)
    await asyncio.to_thread(store.store_code, app.engine, purpose, email, owner, code, ttl, asker)
    accounts.mail(purpose, email, code, lang, deliver=deliver)
    return Sent(sent=True)


async def _limit_checks(request: Request, accounts: AccountServices) -> None:
    if not await accounts.checks_by_client.hit(client_key(request)):
        raise ApiError(429, "rate_limited", "too many codes tried; wait and try again")


@router.post("/email", status_code=202, responses={422: {"description": "`bad_email`"}})
async def ask_link_code(body: EmailBody, guest: Guest, app: AppServices, accounts: Accounts, request: Request) -> Sent:
    """Mail a one-time code to ``email``; entering it (``/email/verify``) links the address."""
    await limit_write(request, accounts, guest)
    email = clean_email(body.email)
    account = await asyncio.to_thread(store.account_for_email, app.engine, email)
    await _limit_codes(request, accounts, email, guest, account)
    return await _send_code(request, app, accounts, "link", email, guest, guest, body.lang)


@router.post(
    "/email/verify",
    responses={
        400: {"description": "`bad_code`: wrong, expired, used or tried too often"},
        409: {"description": "`email_taken`: another account has this address"},
    },
)
async def verify_link_code(
    body: CodeBody, guest: Guest, app: AppServices, accounts: Accounts, request: Request
) -> Profile:
    """Link the address whose code this is to the signed-in account."""
    await limit_write(request, accounts, guest)
    await _limit_checks(request, accounts)
    email = clean_email(body.email)
    attempts = accounts.settings.code_attempts
    asker = requester_of(request, guest)
    owner = await asyncio.to_thread(
        store.spend_code, app.engine, "link", email, body.code.strip(), attempts, guest, asker
    )
    if owner is None:
        raise ApiError(400, "bad_code", "wrong or expired code; ask for a new one")
    try:
        await asyncio.to_thread(store.link_email, app.engine, guest, email)
    except store.AccountError as exc:
        raise ApiError(409, exc.code, str(exc)) from None
    return await load_profile(app, guest)


@router.post("/recover", status_code=202, responses={422: {"description": "`bad_email`"}})
async def ask_recover_code(
    body: EmailBody, guest: MaybeGuest, app: AppServices, accounts: Accounts, request: Request
) -> Sent:
    """Mail a one-time code to ``email`` if an account has it linked.  The answer is the same
    either way, so it does not tell whether the address is registered."""
    await limit_write(request, accounts, guest)
    email = clean_email(body.email)
    account = await asyncio.to_thread(store.account_for_email, app.engine, email)
    await _limit_codes(request, accounts, email, guest, account)
    # Stored for an unknown address too (with no account): the same work, the same timing.
    deliver = account is not None
    return await _send_code(request, app, accounts, "recover", email, guest, account, body.lang, deliver)


@router.post("/recover/verify", responses={400: {"description": "`bad_code`: wrong, expired, used or tried too often"}})
async def verify_recover_code(
    body: CodeBody, guest: MaybeGuest, app: AppServices, accounts: Accounts, request: Request
) -> Recovered:
    """Sign this browser in to the account: a new token (the account's earlier token stops
    working).  The guest this browser had, if it has no linked address, hands its finished
    matches to the account and is retired; its coins stay behind."""
    await limit_write(request, accounts, guest)
    await _limit_checks(request, accounts)
    email = clean_email(body.email)
    attempts = accounts.settings.code_attempts
    asker = requester_of(request, guest)
    account = await asyncio.to_thread(
        store.spend_code, app.engine, "recover", email, body.code.strip(), attempts, None, asker
    )
    if account is None:
        raise ApiError(400, "bad_code", "wrong or expired code; ask for a new one")
    token = await asyncio.to_thread(store.recover, app.engine, account, guest)
    return Recovered(guest=account, token=token)


@router.post("/checkin")
async def check_in(guest: Guest, app: AppServices, accounts: Accounts, request: Request) -> CheckinResult:
    """Claim today's coins (once per UTC day; consecutive days raise the reward)."""
    await limit_write(request, accounts, guest)
    done = await asyncio.to_thread(store.check_in, app.engine, guest, today())
    return CheckinResult(granted=done.granted, day=done.day, coins=done.coins, streak=done.streak, balance=done.balance)


@router.get("/ledger")
async def get_ledger(guest: Guest, app: AppServices) -> Ledger:
    """Every grant and spend of coins, oldest first."""

    def read() -> tuple[int, list[store.LedgerRow]]:
        return store.get_account(app.engine, guest).coins, store.ledger(app.engine, guest)

    balance, rows = await asyncio.to_thread(read)
    entries = [LedgerEntry(delta=r.delta, reason=r.reason, item=r.item, at=r.at) for r in rows]
    return Ledger(balance=balance, entries=entries)


@router.post(
    "/equip",
    responses={
        404: {"description": "`no_item`: not in the catalogue"},
        409: {"description": "`wrong_slot` or `not_owned`"},
    },
)
async def equip(body: EquipBody, guest: Guest, app: AppServices, accounts: Accounts, request: Request) -> Profile:
    """Wear an owned (or free) item; ``item: null`` goes back to the default."""
    await limit_write(request, accounts, guest)
    if body.item is not None:
        found = cosmetics.item(body.item)
        if found is None:
            raise ApiError(404, "no_item", "no such item")
        if found.slot != body.slot:
            raise ApiError(409, "wrong_slot", f"{found.id} is a {found.slot}")
        if found.price > 0 and not await asyncio.to_thread(store.owns, app.engine, guest, found.id):
            raise ApiError(409, "not_owned", "buy it first")
    await asyncio.to_thread(store.equip, app.engine, guest, body.slot, body.item)
    return await load_profile(app, guest)


# -- your data: export and deletion (docs/accounts.md, "Your data") --------------------------


class DeleteBody(BaseModel):
    """The re-confirmation of a deletion: the linked address and the code mailed to it for
    ``purpose`` delete (an account without a linked address sends neither: its token is all
    it has)."""

    model_config = ConfigDict(extra="forbid")
    email: str | None = Field(default=None, max_length=EMAIL_MAX)
    code: str | None = Field(default=None, max_length=32)


class Deleted(BaseModel):
    """The account is gone; its token no longer works."""

    deleted: bool


@router.get("/export", responses={200: {"content": {"application/json": {}}, "description": "an attachment"}})
async def export_data(guest: Guest, app: AppServices, accounts: Accounts, request: Request) -> Response:
    """Everything the server holds about the account, as one JSON file (an attachment):
    profile, coins and ledger, check-ins, cosmetics, codes asked (never their secrets), every
    match it sat in with its seats, rooms, share links, kept logs, reviews asked."""
    await limit_write(request, accounts, guest)
    document = await asyncio.to_thread(privacy.export, app.engine, guest)
    name = f"sanma-account-{today().isoformat()}.json"
    return Response(
        json.dumps(document, ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def _linked(app: AppServices, guest: str, email: str) -> None:
    """Refuse unless ``email`` is the address linked to the account (the owner types it: only
    its hash is stored, so the server cannot mail it unasked)."""
    linked = await asyncio.to_thread(store.account_for_email, app.engine, email)
    if linked != guest:
        raise ApiError(409, "wrong_email", "this is not the address linked to your account")


@router.post(
    "/delete/code",
    status_code=202,
    responses={409: {"description": "`wrong_email`: not the linked address"}, 422: {"description": "`bad_email`"}},
)
async def ask_delete_code(
    body: EmailBody, guest: Guest, app: AppServices, accounts: Accounts, request: Request
) -> Sent:
    """Mail a one-time code to the account's linked address; entering it confirms the deletion."""
    await limit_write(request, accounts, guest)
    email = clean_email(body.email)
    await _linked(app, guest, email)
    await _limit_codes(request, accounts, email, guest, guest)
    return await _send_code(request, app, accounts, "delete", email, guest, guest, body.lang)


@router.post(
    "/delete",
    responses={
        400: {"description": "`bad_code`: wrong, expired, used or tried too often"},
        403: {"description": "`code_required`: the account has a linked address: send it and the mailed code"},
        409: {"description": "`match_running`: seated in a room match that has not ended; `wrong_email`; `busy`"},
    },
)
async def delete_account(
    body: DeleteBody, guest: Guest, app: AppServices, accounts: Accounts, request: Request
) -> Deleted:
    """Delete the account for good: name, linked address, coins, ledger, cosmetics, codes,
    share links, kept logs, reviews and the token.  Every match it sat in stays, its seat held
    by an anonymous guest, so the other players' history and replays stay whole."""
    await limit_write(request, accounts, guest)
    account = await asyncio.to_thread(store.get_account, app.engine, guest)
    if account.email_hint is not None:
        if not body.email or not body.code:
            raise ApiError(403, "code_required", "ask for a code (POST /api/account/delete/code) and send it")
        await _limit_checks(request, accounts)
        email = clean_email(body.email)
        await _linked(app, guest, email)
        attempts = accounts.settings.code_attempts
        asker = requester_of(request, guest)
        spent = await asyncio.to_thread(
            store.spend_code, app.engine, "delete", email, body.code.strip(), attempts, guest, asker
        )
        if spent is None:
            raise ApiError(400, "bad_code", "wrong or expired code; ask for a new one")
    try:
        await asyncio.to_thread(privacy.delete_account, app.engine, guest)
    except store.AccountError as exc:
        if exc.code == "match_running":
            raise ApiError(409, exc.code, str(exc)) from None
        raise ApiError(401, "unauthorized", "unknown guest token") from None
    except IntegrityError:  # a lobby changed under the deletion: nothing was deleted
        raise ApiError(409, "busy", "a room you sit in changed; try again") from None
    log.info("account deleted")
    return Deleted(deleted=True)
