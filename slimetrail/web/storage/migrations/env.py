"""Alembic environment: migrations run on the connection handed over by ``tables.upgrade``."""

from alembic import context

from slimetrail.web.storage.tables import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
