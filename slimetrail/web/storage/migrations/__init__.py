"""Alembic migrations of the web server's database, run at startup by ``db.upgrade``."""
