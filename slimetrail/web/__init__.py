"""The web server: FastAPI app, match storage and the worker pool for computer moves."""
