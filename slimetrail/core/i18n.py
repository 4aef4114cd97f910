def N_(text: str) -> str:
    """Marks a player-read string for the catalogue; the web translates it when it shows it."""
    return text


class Term(str):
    """A catalogued word given as a value of a catalogued sentence (a player's name, N_-marked
    where it is declared): translated with the sentence (see ``GameError.translated``)."""
