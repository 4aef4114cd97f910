"""The matches table.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("opponent", sa.String(16), nullable=False),
        sa.Column("level", sa.Integer(), nullable=True),
        sa.Column("computer_side", sa.Integer(), nullable=True),
        sa.Column("creator_side", sa.Integer(), nullable=False),
        sa.Column("seat1", sa.String(64), nullable=True),
        sa.Column("seat2", sa.String(64), nullable=True),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("to_move", sa.Integer(), nullable=False),
        sa.Column("result", sa.String(8), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_matches_result", "matches", ["result"])


def downgrade() -> None:
    op.drop_index("ix_matches_result", table_name="matches")
    op.drop_table("matches")
