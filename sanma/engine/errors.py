"""Typed errors of the engine: every bad input raises one of these, never a bare crash."""


class SanmaError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidNotation(SanmaError):
    """A string is not valid mpsz notation (or names a tile sanma does not have)."""


class InvalidHand(SanmaError):
    """Tiles that cannot exist together: a fifth copy, a wrong count, a bad meld."""


class IllegalAction(SanmaError):
    """An action that is not in the acting seat's legal actions."""


class InvalidLog(SanmaError):
    """A game log that cannot be read or does not replay, with where it went wrong when the
    reader knows: ``source`` (the file, or any label the caller gave), ``hand`` (0-based,
    ``None`` outside a hand) and ``position`` (a short description in the format's terms).
    ``reason`` is the message without them."""

    def __init__(self, message: str, *, source: str = "", hand: int | None = None, position: str = "") -> None:
        self.source = source
        self.hand = hand
        self.position = position
        self.reason = message
        where = [p for p in (source, f"hand {hand}" if hand is not None else "", position) if p]
        super().__init__(f"{': '.join(where)}: {message}" if where else message)


class NotWinning(SanmaError):
    """The tiles do not form a complete hand."""


class NoYaku(SanmaError):
    """A complete hand with no yaku cannot win."""
