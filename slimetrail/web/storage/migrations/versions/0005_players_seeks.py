"""Players (a browser's signed cookie), the seat each player holds, and seeks for pairing.

``players``: a browser's player id and its optional display name.  ``seats.owner``: the
player id holding the seat (the creator's, or a friend's once their link is opened), so a
browser finds its games.  ``seeks``: visitors waiting for an opponent, grouped by ``pool``
(game, options, clock).  ``site_secrets``: the key signing the player cookies, made once, so
every process and every restart reads the same one.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=True),
    )
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("owner", sa.String(32), nullable=True))
    op.create_index("ix_seats_owner", "seats", ["owner"])
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("clock", sa.String(16), nullable=False),
        sa.Column("pool", sa.String(400), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("seen", sa.Float(), nullable=False),
        sa.Column("claimed", sa.String(32), nullable=True),
        sa.Column("match_id", sa.String(32), nullable=True),
        sa.Column("token", sa.String(64), nullable=True),
    )
    op.create_index("ix_seeks_pool", "seeks", ["pool", "created"])
    op.create_table(
        "site_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("site_secrets")
    op.drop_index("ix_seeks_pool", "seeks")
    op.drop_table("seeks")
    op.drop_index("ix_seats_owner", "seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("owner")
    op.drop_table("players")
