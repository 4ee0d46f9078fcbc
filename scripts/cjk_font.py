"""Regenerate web/assets/fonts/sanma-cjk-{regular,bold}.woff2: the kanji and kana the client can
show, cut from Debian's Noto Sans CJK JP Regular and Bold (package fonts-noto-cjk, SIL Open Font
License 1.1).  The UI sets headings, buttons and marks in bold: a real bold face reads better
there than the browser's smeared synthetic one, and a page fetches it only when it draws one.

A system with no Japanese font draws boxes for Japanese text; the CSS names this face after the
systems' own CJK fonts (web/assets/style.css), so it is fetched only where none of them is present
and only by a page that draws a character of ``RANGES``.  The characters kept are every one in
``RANGES`` that any client file uses (the Japanese dictionaries, rules and guide captions, and any
kanji in a script), so a new Japanese string with a new kanji needs this script run again
(tests/test_cjk_font.py says which characters are missing).

    .venv/bin/python scripts/cjk_font.py          # writes the font, prints its size and glyphs

Needs fontTools and brotli (requirements-dev.txt); the server only serves the file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
FONTS = WEB / "assets" / "fonts"
NOTO = Path("/usr/share/fonts/opentype/noto")
# The shipped file of each weight, and Debian's collection it is cut from.
WEIGHTS = {
    "regular": (FONTS / "sanma-cjk-regular.woff2", NOTO / "NotoSansCJK-Regular.ttc"),
    "bold": (FONTS / "sanma-cjk-bold.woff2", NOTO / "NotoSansCJK-Bold.ttc"),
}
SOURCE_FAMILY = "Noto Sans CJK JP"  # the collection's face to cut from (it also holds KR, SC...)
# The subset's own name (the OFL asks a Modified Version not to pass for the original), the one
# the CSS gives its @font-face and the browser reports as the font that drew a text.
FAMILY = "Sanma CJK"
# The name table's naming records, replaced by FAMILY's: family, unique id, full and PostScript
# names, typographic family and subfamily, and the localised (Japanese) ones of each.
NAME_IDS = (1, 2, 3, 4, 6, 16, 17, 18, 20, 21, 22)

# (first, last) code points the shipped face is for: CJK punctuation, hiragana, katakana, their
# phonetic extensions, the unified ideographs (with extension A and the compatibility block) and
# the full-width forms.  The CSS's unicode-range says the same, so a page in Latin or Cyrillic
# letters never fetches the font.
RANGES = (
    (0x3000, 0x30FF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
)

# The client's files that may hold text it shows.
SUFFIXES = (".js", ".json", ".html")


def in_ranges(char: str) -> bool:
    return any(first <= ord(char) <= last for first, last in RANGES)


def client_characters(web: Path = WEB) -> set[str]:
    """Every character of ``RANGES`` in the client's scripts, dictionaries and pages."""
    chars: set[str] = set()
    for path in sorted(web.rglob("*")):
        if path.suffix in SUFFIXES and path.is_file():
            chars.update(c for c in path.read_text(encoding="utf-8") if in_ranges(c))
    return chars


def unicode_range() -> str:
    """``RANGES`` as a CSS unicode-range value (what web/assets/style.css must say)."""
    return ", ".join(f"U+{first:X}-{last:X}" for first, last in RANGES)


def build(chars: set[str], weight: str, source: Path, out: Path) -> int:
    """Write the WOFF2 subset of ``chars``; return its glyph count."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    collection = TTCollection(str(source), recalcTimestamp=False)
    faces = [f for f in collection.fonts if f["name"].getDebugName(1) == SOURCE_FAMILY]
    if not faces:
        raise SystemExit(f"{source} has no face {SOURCE_FAMILY!r}")
    font = faces[0]
    options = subset.Options()
    options.flavor = "woff2"
    # Hints and vertical metrics do nothing for a few hundred glyphs drawn horizontally at UI
    # sizes; dropping them halves the file.
    options.hinting = False
    options.desubroutinize = True
    options.drop_tables += ["vhea", "vmtx", "VORG"]
    options.layout_features = ["ccmp", "locl", "kern"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 13, 14]  # with the trademark and licence records
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(c) for c in chars))
    subsetter.subset(font)
    rename(font, weight)
    out.parent.mkdir(parents=True, exist_ok=True)
    font.flavor = "woff2"
    font.save(str(out))
    return len(font.getGlyphOrder())


def rename(font: Any, weight: str) -> None:
    """Name the subset FAMILY (``weight``: "regular" or "bold"), keeping the copyright, version,
    trademark and licence records."""
    table = font["name"]
    table.names = [record for record in table.names if record.nameID not in NAME_IDS]
    style = weight.capitalize()
    postscript = f"{FAMILY.replace(' ', '')}-{style}"
    names = {1: FAMILY, 2: style, 3: f"{postscript};subset", 4: f"{FAMILY} {style}", 6: postscript}
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
    if "CFF " in font:  # the CFF table's own names, which some renderers read
        cff = font["CFF "].cff
        cff.fontNames = [postscript]
        top = cff.topDictIndex[0]
        top.FullName, top.FamilyName = f"{FAMILY} {style}", FAMILY


def main() -> None:
    chars = client_characters()
    for weight, (out, source) in WEIGHTS.items():
        glyphs = build(chars, weight, source, out)
        print(f"{out.relative_to(ROOT)}: {out.stat().st_size} bytes, {len(chars)} characters, {glyphs} glyphs")
    print(f"unicode-range: {unicode_range()}")


if __name__ == "__main__":
    sys.exit(main())
