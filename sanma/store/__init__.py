"""The database (SQLAlchemy 2 + Alembic): guests, matches and their durable event logs.

It knows no web types: the server hands it plain values (ids, JSON text) and gets plain
values back.  SQLite is the default; nothing here is SQLite-only, so a PostgreSQL URL
works unchanged.
"""
