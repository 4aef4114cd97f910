def N_(text: str) -> str:
    """Marks a player-read string for the catalogue; the web translates it when it shows it."""
    return text
