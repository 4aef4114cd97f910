"""Retention (issue 14, item 4): abandoned and old matches are deleted, on SQLite and
PostgreSQL, by the server every ``expiry_interval`` and by ``slimetrail expire``."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from slimetrail.cli.main import main
from slimetrail.web.app import create_app
from slimetrail.web.service.matches import MatchService
from slimetrail.web.settings import Limits
from slimetrail.web.storage.retention import expire_matches
from slimetrail.web.storage.tables import (
    MatchRow,
    MoveRow,
    ReviewRow,
    SeatRow,
    make_engine,
    make_sessionmaker,
    upgrade,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'expiry.db'}"
    return request.getfixturevalue("pg_database")()


def service_for(url: str) -> MatchService:
    engine = make_engine(url)
    upgrade(engine)
    return MatchService(make_sessionmaker(engine))


def age(service: MatchService, match_id: str, days: float) -> None:
    """Make the match's last change ``days`` before NOW."""
    with service.sessions.begin() as session:
        session.execute(
            update(MatchRow)
            .where(MatchRow.id == match_id)
            .values(updated=NOW - timedelta(days=days))
        )


def rows(service: MatchService, table, match_id: str) -> int:
    with service.sessions() as session:
        column = table.id if table is MatchRow else table.match_id
        return session.scalar(select(func.count()).select_from(table).where(column == match_id))


def played(service: MatchService, *moves: str, resign: bool = False) -> str:
    live, token = service.create("slimetrail", {}, opponent="hotseat")
    for ply, move in enumerate(moves):
        service.move(live.id, token, move, ply)
    if resign:
        service.resign(live.id, token)
    return live.id


def test_the_policy_deletes_exactly_the_expired_matches(db_url: str) -> None:
    service = service_for(db_url)
    abandoned = played(service, "e4", "e3")  # unfinished, no move for 31 days: abandoned
    waiting = played(service, "e4")  # unfinished, last move 29 days ago: kept
    old_end = played(service, "e4", resign=True)  # finished 181 days ago: deleted
    recent_end = played(service, resign=True)  # finished 179 days ago: kept
    service.keep_review(old_end, 2, {"plies": []})  # a review goes with its match
    fresh = played(service, "e4")
    for match_id, days in ((abandoned, 31), (waiting, 29), (old_end, 181), (recent_end, 179)):
        age(service, match_id, days)
    age(service, fresh, 0)
    assert expire_matches(service.sessions, 30, 180, now=NOW, dry_run=True) == 2
    assert rows(service, MatchRow, abandoned) == 1  # a dry run deletes nothing
    assert expire_matches(service.sessions, 30, 180, now=NOW) == 2
    for gone in (abandoned, old_end):
        tables = (MatchRow, SeatRow, MoveRow, ReviewRow)
        assert [rows(service, table, gone) for table in tables] == [0, 0, 0, 0]
    for kept in (waiting, recent_end, fresh):
        assert rows(service, MatchRow, kept) == 1 and rows(service, SeatRow, kept) == 2
    assert rows(service, MoveRow, waiting) == 1
    assert expire_matches(service.sessions, 30, 180, now=NOW) == 0
    # A match held in memory is gone too: its link answers 404.
    from slimetrail.web.errors import status_of
    from slimetrail.web.service.errors import MatchError

    with pytest.raises(MatchError) as missing:
        service.load(abandoned)
    assert status_of(missing.value) == 404
    # Two days on, `waiting` (31 days without a move) and `recent_end` (181) have expired.
    later = NOW + timedelta(days=2)
    assert expire_matches(service.sessions, 30, 180, now=later) == 2
    assert [rows(service, MatchRow, m) for m in (waiting, recent_end, fresh)] == [0, 0, 1]


def test_expiry_works_in_batches(db_url: str, monkeypatch) -> None:
    from slimetrail.web.storage import retention

    monkeypatch.setattr(retention, "BATCH", 2)
    service = service_for(db_url)
    ids = [played(service, "e4") for _ in range(5)]
    for match_id in ids:
        age(service, match_id, 40)
    assert expire_matches(service.sessions, 30, 180, now=NOW) == 5
    assert all(rows(service, MatchRow, match_id) == 0 for match_id in ids)


def test_expire_command(db_url: str, capsys) -> None:
    service = service_for(db_url)
    old, new = played(service, "e4"), played(service, "e4")
    # The command uses today's date: one match 10 days old, one 1 day old; the limit 5 days.
    with service.sessions.begin() as session:
        session.execute(
            update(MatchRow)
            .where(MatchRow.id == new)
            .values(updated=datetime.now(UTC) - timedelta(days=1))
        )
        session.execute(
            update(MatchRow)
            .where(MatchRow.id == old)
            .values(updated=datetime.now(UTC) - timedelta(days=10))
        )
    assert main(["expire", "--db", db_url, "--unfinished-days", "5", "--dry-run"]) == 0
    assert capsys.readouterr().out.strip() == "would delete 1 expired match"
    assert rows(service, MatchRow, old) == 1
    assert main(["expire", "--db", db_url, "--unfinished-days", "5"]) == 0
    assert capsys.readouterr().out.strip() == "deleted 1 expired match"
    assert rows(service, MatchRow, old) == 0 and rows(service, MatchRow, new) == 1


def test_expire_command_names_a_database_it_cannot_open(capsys) -> None:
    assert main(["expire", "--db", "nonsense://x"]) == 2
    assert "cannot open the database nonsense://x" in capsys.readouterr().err


def test_the_server_expires_matches_periodically(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'periodic.db'}"
    limits = Limits(unfinished_days=1, expiry_interval=0.2)
    with TestClient(create_app(url, workers=1, limits=limits)) as client:
        service = client.app.state.service
        made = client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"})
        match_id = made.json()["id"]
        kept = client.post("/api/matches", json={"game": "slimetrail", "opponent": "hotseat"})
        with service.sessions.begin() as session:
            session.execute(
                update(MatchRow)
                .where(MatchRow.id == match_id)
                .values(updated=datetime.now(UTC) - timedelta(days=2))
            )
        deadline = time.monotonic() + 30
        while client.get(f"/api/matches/{match_id}").status_code != 404:
            assert time.monotonic() < deadline, "the server did not expire the match"
            time.sleep(0.1)
        assert client.get(f"/api/matches/{kept.json()['id']}").status_code == 200
