"""The computer player: a generic alpha-beta search and strength levels on top of it.

``choose_move(state, level, time_limit=..., seed=...)`` picks a move at a strength level
(``LEVELS`` describes them, ``MAX_LEVEL`` is the strongest); ``search(state, depth=...,
movetime=..., nodes=..., stop=..., on_info=...)`` is the analysis search (``movetime`` in
seconds) returning a :class:`SearchResult`.
"""

from slimetrail.ai.levels import LEVELS, MAX_LEVEL, choose_move
from slimetrail.ai.search import MATE, SearchResult, search

__all__ = ["LEVELS", "MATE", "MAX_LEVEL", "SearchResult", "choose_move", "search"]
