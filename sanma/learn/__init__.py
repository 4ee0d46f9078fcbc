"""The learned master's data side: what a seat sees as numbers (``encode``) and the human
decisions of real games as a dataset (``dataset``).  Above the engine, below the bots: it
reads only ``SeatView`` and the engine's legal actions, so a bot can serve what it learns."""
