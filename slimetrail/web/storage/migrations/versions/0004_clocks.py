"""Clocks and bots: each match's time control and clocks, the mover's time with each move,
forfeits (time, a bot's illegal move), bot seats and the bots' table.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("clock", sa.String(16), nullable=True))
        batch.add_column(sa.Column("clock_ms", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("turn_started", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("flag_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("forfeit", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("forfeit_reason", sa.String(32), nullable=True))
        batch.add_column(sa.Column("forfeit_note", sa.String(300), nullable=True))
        batch.create_index("ix_matches_flag_at", ["flag_at"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("bot", sa.String(64), nullable=True))
    with op.batch_alter_table("moves") as batch:
        batch.add_column(sa.Column("clock_ms", sa.Integer(), nullable=True))
    op.create_table(
        "bots",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("games", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("bots")
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("clock_ms")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("bot")
    with op.batch_alter_table("matches") as batch:
        batch.drop_index("ix_matches_flag_at")
        for name in (
            "forfeit_note",
            "forfeit_reason",
            "forfeit",
            "flag_at",
            "turn_started",
            "clock_ms",
            "clock",
        ):
            batch.drop_column(name)
