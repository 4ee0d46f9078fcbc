"""The pure rules engine: no I/O, no clock, no asyncio, no global random."""
