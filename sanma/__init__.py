"""Sanma: three-player Japanese riichi mahjong."""

__version__ = "0.1.0"
