"""A ``limits`` storage on PostgreSQL: per-client rates that hold across server processes.

The ``limits`` library counts in ``memory://`` (one process) unless given a shared storage,
and it ships none for PostgreSQL.  Several ``slimetrail serve`` processes on one PostgreSQL
would each allow a client the whole rate, so this storage keeps the counts in that database.
Importing this module registers it for the URI schemes ``postgresql``, ``postgres`` and
``postgresql+psycopg`` (``storage_from_string("postgresql://user@host/db")``).

Each operation is one statement, atomic by itself: an ``INSERT ... ON CONFLICT DO UPDATE``
locks the client's row while it decides, so two processes hitting the same key at once are
counted one after the other, never both let through on a stale count.

* Moving window (:class:`~limits.strategies.MovingWindowRateLimiter`, what the server uses):
  one row per key holding the times of its accepted hits, newest first; a hit drops the
  times older than the window and is accepted if the rest leave room.
* Fixed window (the base ``Storage`` counters): one row per key, a count and when it expires.

Times are the database's clock, the one clock every process shares.  Rows whose window has
passed are deleted now and then (every :data:`CLEANUP_INTERVAL` seconds per process).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from limits.storage import MovingWindowSupport, Storage
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from slimetrail.web.storage.tables import make_engine

WINDOWS, COUNTERS = "slimetrail_rate_windows", "slimetrail_rate_counters"
CLEANUP_INTERVAL = 300.0
# Two processes starting at once must not both create the tables.
SCHEMA_LOCK = 0x5E1E_4A7E
NOW = "extract(epoch FROM clock_timestamp())::float8"

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {WINDOWS} (
    key text PRIMARY KEY,
    hits float8[] NOT NULL,
    expires float8 NOT NULL,
    accepted boolean NOT NULL
);
CREATE TABLE IF NOT EXISTS {COUNTERS} (
    key text PRIMARY KEY,
    count integer NOT NULL,
    expires float8 NOT NULL
)
"""

# ``accepted`` is the decision of the statement that last touched the row: RETURNING reads
# it back under the row's lock.  EXCLUDED.hits is the new hit's times, EXCLUDED.expires its
# time plus the window (so the window starts at EXCLUDED.expires - 2 * expiry).
ACQUIRE = f"""
INSERT INTO {WINDOWS} AS w (key, hits, expires, accepted)
SELECT :key, array_fill(t, ARRAY[:amount]), t + :expiry, true FROM (SELECT {NOW} AS t) AS now
ON CONFLICT (key) DO UPDATE SET (hits, expires, accepted) = (
    SELECT CASE WHEN fits THEN EXCLUDED.hits || kept ELSE kept END,
           CASE WHEN fits THEN EXCLUDED.expires ELSE w.expires END,
           fits
      FROM (SELECT kept, cardinality(kept) + :amount <= :limit AS fits
              FROM (SELECT ARRAY(SELECT h FROM unnest(w.hits) AS h
                                  WHERE h > EXCLUDED.expires - 2 * :expiry) AS kept) AS k
           ) AS d
)
RETURNING accepted
"""
WINDOW = f"""
SELECT now.t, ARRAY(SELECT h FROM unnest(w.hits) AS h WHERE h > now.t - :expiry) AS kept
  FROM (SELECT {NOW} AS t) AS now LEFT JOIN {WINDOWS} AS w ON w.key = :key
"""
INCR = f"""
INSERT INTO {COUNTERS} AS c (key, count, expires)
SELECT :key, :amount, t + :expiry FROM (SELECT {NOW} AS t) AS now
ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN c.expires <= EXCLUDED.expires - :expiry THEN :amount
                 ELSE c.count + :amount END,
    expires = CASE WHEN c.expires <= EXCLUDED.expires - :expiry THEN EXCLUDED.expires
                   ELSE c.expires END
RETURNING count
"""
COUNTER = f"""
SELECT now.t, c.count, c.expires
  FROM (SELECT {NOW} AS t) AS now LEFT JOIN {COUNTERS} AS c ON c.key = :key AND c.expires > now.t
"""


class PostgresStorage(Storage, MovingWindowSupport):
    """Rate limit counts in PostgreSQL tables, shared by every process using the database."""

    # limits types this as an instance attribute, but its scheme registry reads it from the
    # class when the class is created.
    STORAGE_SCHEME: ClassVar[list[str]] = [  # type: ignore[misc]
        "postgresql",
        "postgres",
        "postgresql+psycopg",
    ]

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: Any) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        engine = make_engine(uri)
        # Each operation is one statement: no BEGIN/COMMIT round trips around it.
        self.engine: Engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self.cleaned = time.monotonic()
        with engine.begin() as connection:
            connection.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": SCHEMA_LOCK})
            connection.exec_driver_sql(SCHEMA)

    @property
    def base_exceptions(self) -> type[Exception]:
        return SQLAlchemyError

    def close(self) -> None:
        self.engine.dispose()

    def _one(self, sql: str, **params: Any) -> Any:
        with self.engine.begin() as connection:
            return connection.execute(text(sql), params).one()

    def _cleanup(self) -> None:
        if time.monotonic() - self.cleaned < CLEANUP_INTERVAL:
            return
        self.cleaned = time.monotonic()
        with self.engine.begin() as connection:
            for table in (WINDOWS, COUNTERS):
                connection.execute(text(f"DELETE FROM {table} WHERE expires < {NOW}"))

    # -- moving window ---------------------------------------------------------------

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        self._cleanup()
        return bool(self._one(ACQUIRE, key=key, limit=limit, expiry=expiry, amount=amount)[0])

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now, kept = self._one(WINDOW, key=key, expiry=expiry)
        return (min(kept), len(kept)) if kept else (now, 0)

    # -- fixed window counters -------------------------------------------------------

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        self._cleanup()
        return int(self._one(INCR, key=key, expiry=expiry, amount=amount)[0])

    def get(self, key: str) -> int:
        _, count, _ = self._one(COUNTER, key=key)
        return int(count or 0)

    def get_expiry(self, key: str) -> float:
        now, _, expires = self._one(COUNTER, key=key)
        return float(expires if expires is not None else now)

    def clear(self, key: str) -> None:
        with self.engine.begin() as connection:
            for table in (WINDOWS, COUNTERS):
                connection.execute(text(f"DELETE FROM {table} WHERE key = :key"), {"key": key})

    def reset(self) -> int | None:
        with self.engine.begin() as connection:
            return sum(
                connection.execute(text(f"DELETE FROM {table}")).rowcount
                for table in (WINDOWS, COUNTERS)
            )

    def check(self) -> bool:
        try:
            self._one("SELECT 1")
        except SQLAlchemyError:
            return False
        return True
