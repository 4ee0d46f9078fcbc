"""The shop: the catalogue of cosmetics and buying with coins (never anything that plays)."""

from __future__ import annotations

import asyncio
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from sanma.server import cosmetics
from sanma.server.api.accounts import Accounts, limit_write
from sanma.server.api.deps import ERRORS, ApiError, AppServices, Guest
from sanma.store import accounts as store

router = APIRouter(prefix="/api/shop", tags=["shop"], responses=ERRORS)


class Names(BaseModel):
    """An item's name in each language."""

    en: str
    id: str
    ja: str
    ru: str


class ShopItem(BaseModel):
    """One cosmetic for sale (price 0: everyone has it)."""

    id: str
    slot: Literal["tile_back", "cloth"]
    price: int
    name: Names
    colors: list[str] = Field(description="tile back: gradient start, end, emblem; cloth: centre, felt, edge")
    pattern: str | None = Field(description="a motif drawn on top: stripes, dots, or null")


class Catalogue(BaseModel):
    """Everything the shop sells."""

    items: list[ShopItem]


class BuyBody(BaseModel):
    """The item to buy."""

    model_config = ConfigDict(extra="forbid")
    item: str = Field(max_length=32)


class Bought(BaseModel):
    """The balance after the purchase."""

    item: str
    balance: int


@router.get("")
async def catalogue() -> Catalogue:
    """The catalogue: tile backs and table cloths with their prices."""
    return Catalogue(
        items=[
            ShopItem(
                id=i.id,
                slot=i.slot,
                price=i.price,
                name=Names(en=i.name_en, id=i.name_id, ja=i.name_ja, ru=i.name_ru),
                colors=list(i.colors),
                pattern=i.pattern,
            )
            for i in cosmetics.CATALOGUE
        ]
    )


@router.post(
    "/buy",
    responses={
        404: {"description": "`no_item`: not in the catalogue"},
        409: {"description": "`already_owned`, `free_item` or `not_enough_coins`"},
    },
)
async def buy(body: BuyBody, guest: Guest, app: AppServices, accounts: Accounts, request: Request) -> Bought:
    """Buy an item with coins: all or nothing, never below zero, never twice."""
    await limit_write(request, accounts, guest)
    found = cosmetics.item(body.item)
    if found is None:
        raise ApiError(404, "no_item", "no such item")
    if found.price == 0:
        raise ApiError(409, "free_item", "everyone has this one")
    try:
        balance = await asyncio.to_thread(store.buy, app.engine, guest, found.id, found.price)
    except store.AccountError as exc:
        raise ApiError(409, exc.code, str(exc)) from None
    return Bought(item=found.id, balance=balance)
