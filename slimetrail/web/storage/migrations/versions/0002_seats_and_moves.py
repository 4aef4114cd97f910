"""Seats and moves get tables of their own: N seats per match, one row per move.

A match's seats were two columns (``seat1``/``seat2`` tokens, ``computer_side``, ``level``,
``opponent``) and its moves one JSON list rewritten by every move.  Now every seat is a row
(a person's token, or the computer at a level) and every move is a row, so a move writes one
small row whatever the game's length.  Existing matches keep their seats, moves and tokens.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seats",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE")),
        sa.Column("seat", sa.Integer()),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("token", sa.String(64), nullable=True),
        sa.Column("level", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    op.create_table(
        "moves",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE")),
        sa.Column("ply", sa.Integer()),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("move", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "ply"),
    )
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("ply", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("resigned", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("rematch", sa.String(32), nullable=True))

    connection = op.get_bind()
    old = sa.table(
        "matches",
        sa.column("id", sa.String),
        sa.column("computer_side", sa.Integer),
        sa.column("level", sa.Integer),
        sa.column("seat1", sa.String),
        sa.column("seat2", sa.String),
        sa.column("moves", sa.JSON),
        sa.column("ply", sa.Integer),
    )
    seats = sa.table(
        "seats",
        sa.column("match_id", sa.String),
        sa.column("seat", sa.Integer),
        sa.column("kind", sa.String),
        sa.column("token", sa.String),
        sa.column("level", sa.Integer),
    )
    moves = sa.table(
        "moves",
        sa.column("match_id", sa.String),
        sa.column("ply", sa.Integer),
        sa.column("player", sa.Integer),
        sa.column("move", sa.String),
    )
    rows = connection.execute(
        sa.select(old.c.id, old.c.computer_side, old.c.level, old.c.seat1, old.c.seat2, old.c.moves)
    ).all()
    for match_id, computer_side, level, seat1, seat2, texts in rows:
        for seat, token in ((1, seat1), (2, seat2)):
            computer = computer_side == seat
            connection.execute(
                seats.insert().values(
                    match_id=match_id,
                    seat=seat,
                    kind="computer" if computer else "human",
                    token=None if computer else token,
                    level=level if computer else None,
                )
            )
        # Every game stored so far had two players taking turns.
        if texts:
            connection.execute(
                moves.insert(),
                [
                    {"match_id": match_id, "ply": n, "player": 2 - n % 2, "move": text}
                    for n, text in enumerate(texts, 1)
                ],
            )
        connection.execute(old.update().where(old.c.id == match_id).values(ply=len(texts)))

    with op.batch_alter_table("matches") as batch:
        batch.alter_column("creator_side", new_column_name="creator_seat")
        batch.alter_column("result", type_=sa.String(64), existing_nullable=False)
        batch.alter_column("ply", server_default=None)
        for name in ("opponent", "level", "computer_side", "seat1", "seat2", "moves"):
            batch.drop_column(name)


def downgrade() -> None:
    # Back to two seat columns: only matches of two seats can be expressed there.
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("opponent", sa.String(16), nullable=False, server_default=""))
        batch.add_column(sa.Column("level", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("computer_side", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("seat1", sa.String(64), nullable=True))
        batch.add_column(sa.Column("seat2", sa.String(64), nullable=True))
        batch.add_column(sa.Column("moves", sa.JSON(), nullable=True))
        batch.alter_column("creator_seat", new_column_name="creator_side")
    connection = op.get_bind()
    matches = sa.table(
        "matches",
        sa.column("id", sa.String),
        sa.column("opponent", sa.String),
        sa.column("level", sa.Integer),
        sa.column("computer_side", sa.Integer),
        sa.column("seat1", sa.String),
        sa.column("seat2", sa.String),
        sa.column("moves", sa.JSON),
    )
    seat_rows = connection.execute(
        sa.text("SELECT match_id, seat, kind, token, level FROM seats ORDER BY match_id, seat")
    ).all()
    by_match: dict[str, dict[int, tuple]] = {}
    for match_id, seat, kind, token, level in seat_rows:
        by_match.setdefault(match_id, {})[seat] = (kind, token, level)
    for match_id, seats in by_match.items():
        texts = [
            text
            for (text,) in connection.execute(
                sa.text("SELECT move FROM moves WHERE match_id = :m ORDER BY ply"), {"m": match_id}
            )
        ]
        computer = [s for s, (kind, _, _) in seats.items() if kind == "computer"]
        tokens = {s: token for s, (_, token, _) in seats.items()}
        if computer:
            opponent = "computer"
        elif tokens.get(1) == tokens.get(2):
            opponent = "hotseat"
        else:
            opponent = "friend"
        connection.execute(
            matches.update()
            .where(matches.c.id == match_id)
            .values(
                opponent=opponent,
                level=seats[computer[0]][2] if computer else None,
                computer_side=computer[0] if computer else None,
                seat1=tokens.get(1),
                seat2=tokens.get(2),
                moves=texts,
            )
        )
    with op.batch_alter_table("matches") as batch:
        batch.alter_column("opponent", server_default=None)
        batch.alter_column("moves", nullable=False)
        batch.alter_column("result", type_=sa.String(8), existing_nullable=False)
        for name in ("ply", "resigned", "rematch"):
            batch.drop_column(name)
    op.drop_table("moves")
    op.drop_table("seats")
