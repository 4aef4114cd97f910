"""The routers of the web app, one per concern: pages, matches, analysis, live updates."""
