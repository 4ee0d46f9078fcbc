"""Alembic environment: runs on the connection the caller passes (``sanma.store.db.upgrade``),
or opens the URL of the config / ``SANMA_DATABASE_URL`` when run from the ``alembic`` command."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine

from sanma.store.tables import metadata

# Only set while Alembic runs migrations (this file is also imported by doctest collection).
config = getattr(context, "config", None)


def run() -> None:
    assert config is not None
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = os.environ.get("SANMA_DATABASE_URL") or config.get_main_option("sqlalchemy.url") or "sqlite:///data/sanma.db"
    engine = create_engine(url)
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()


if config is not None:
    run()
