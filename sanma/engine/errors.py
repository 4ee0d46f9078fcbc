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
    """A game log that cannot be read or does not replay."""


class NotWinning(SanmaError):
    """The tiles do not form a complete hand."""


class NoYaku(SanmaError):
    """A complete hand with no yaku cannot win."""
