"""The shop's catalogue: cosmetics as data (tile backs and table cloths), never gameplay.

Each item has a slot (what it dresses), a price in coins, names in the client's four languages and the
colours the browser applies (CSS colour strings).  Items priced 0 are everyone's from the
start: the default look.  Ids are stable: they are stored in ``owned_items`` and ``accounts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Slot = Literal["tile_back", "cloth"]
SLOTS: tuple[Slot, ...] = ("tile_back", "cloth")


@dataclass(frozen=True, slots=True)
class Item:
    """One cosmetic.  ``colors`` for a tile back: gradient start, end, emblem; for a cloth:
    centre, felt, edge; ``pattern`` names an optional motif drawn on top (``stripes``, ``dots``)."""

    id: str
    slot: Slot
    price: int
    name_en: str
    name_id: str
    name_ja: str
    name_ru: str
    colors: tuple[str, str, str]
    pattern: str | None = None


CATALOGUE: tuple[Item, ...] = (
    Item("back-amber", "tile_back", 0, "Amber", "Kuning tua", "琥珀", "Янтарь", ("#e07b26", "#b4521a", "#ffe6b0")),
    Item("back-indigo", "tile_back", 100, "Indigo", "Nila", "藍", "Индиго", ("#3a4fb8", "#1f2a6b", "#d9e0ff")),
    Item(
        "back-crimson", "tile_back", 150, "Crimson", "Merah tua", "深紅", "Багрянец", ("#c8323c", "#7d1820", "#ffd6d6")
    ),
    Item("back-jade", "tile_back", 200, "Jade", "Giok", "翡翠", "Нефрит", ("#2f9e77", "#16604a", "#d4fff0")),
    Item(
        "back-night",
        "tile_back",
        300,
        "Night stripes",
        "Garis malam",
        "夜の縞",
        "Ночные полосы",
        ("#2b2f3a", "#11131a", "#f0c35a"),
        "stripes",
    ),
    Item(
        "back-sakura",
        "tile_back",
        400,
        "Sakura dots",
        "Titik sakura",
        "桜の水玉",
        "Сакура в горошек",
        ("#f2a7c3", "#c8628b", "#fff4f8"),
        "dots",
    ),
    Item(
        "back-gold",
        "tile_back",
        800,
        "Gold leaf",
        "Daun emas",
        "金箔",
        "Сусальное золото",
        ("#f5d37a", "#b8871f", "#fff7dc"),
    ),
    Item(
        "cloth-green",
        "cloth",
        0,
        "Club green",
        "Hijau klub",
        "雀荘の緑",
        "Клубный зелёный",
        ("#1b7d54", "#0f5b3e", "#093726"),
    ),
    Item("cloth-navy", "cloth", 200, "Navy", "Biru laut", "紺", "Тёмно-синий", ("#2a5a9e", "#183a6e", "#0c1f3d")),
    Item("cloth-wine", "cloth", 250, "Wine", "Anggur", "ワイン", "Винный", ("#8e2f4f", "#5e1c33", "#34101d")),
    Item(
        "cloth-slate", "cloth", 300, "Slate", "Batu tulis", "スレート", "Грифельный", ("#5d6b78", "#3c4752", "#1f262d")
    ),
    Item(
        "cloth-sand",
        "cloth",
        500,
        "Desert sand",
        "Pasir gurun",
        "砂漠の砂",
        "Песок пустыни",
        ("#b08d57", "#806337", "#4a391e"),
    ),
)

BY_ID: dict[str, Item] = {item.id: item for item in CATALOGUE}
DEFAULTS: dict[Slot, str] = {slot: next(i.id for i in CATALOGUE if i.slot == slot and i.price == 0) for slot in SLOTS}


def item(item_id: str) -> Item | None:
    """The item with ``item_id``, or ``None``.

    >>> item("back-indigo").price
    100
    """
    return BY_ID.get(item_id)
