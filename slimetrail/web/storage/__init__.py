"""Where matches are kept: the SQLAlchemy tables and their migrations, the repository the
match service calls, retention, and the PostgreSQL storage of the rate limits."""
