"""The computer players: searches, strength levels and the shared limit/result pair.

Entry points (every caller -- web, CLI, UGI -- goes through these)::

    from slimetrail.ai import Limit, PlayResult, choose_move, play, analyse, levels_for

    move = choose_move(state, level, Limit(time=1.0), seed=7)   # -> Move
    result = play(state, level, Limit(time=1.0), seed=7)        # -> PlayResult (move, info)
    result = analyse(state, Limit(time=2.0), stop=event, on_info=callback)  # full strength
    levels_for(game)  # {1: "beginner: ...", ..., top: "..."}: every game has levels 1..top

:class:`Limit` bounds time (seconds), nodes and depth in any combination; :class:`PlayResult`
carries the move and what the search knows (``score``, ``value``, ``proven``, ``mate``,
``pv``, ``nodes``, ``depth``, ``seconds``, ``info``).

The searches say what they can play: :func:`search` (alpha-beta, :mod:`slimetrail.ai.search`)
plays two-player zero-sum games and raises :class:`GameError` for any other;
:class:`MCTS` / :func:`mcts` (:mod:`slimetrail.ai.mcts`) play any number of players.

Levels: a game declares its own ladder by overriding ``Game.ai_ladder(self)`` to return a
:class:`Ladder` -- ``Ladder(levels={1: player, 2: ..., top: ...}, analyse=function)``, where
each player has a ``description`` and ``play(state, limit, rng) -> PlayResult`` (see the
:class:`~slimetrail.ai.levels.Player` protocol) and ``analyse(state, limit, stop, on_info)``
is the game's full-strength analysis; its optional ``solved`` hook gives engines a proven
move with its score.  The games with ladders of their own keep them in their folders (the
Slime Trail games': alpha-beta, the books and the exact solver at level 6, in
:mod:`slimetrail.games.trail.ladder`); every other game gets :data:`MCTS_LADDER`
(:func:`mcts_ladder`): level 1 random but never missing a win in one, then MCTS with more
and more playouts, the top level using the whole time limit.  :func:`levels_for` gives any
game's levels.
"""

from slimetrail.ai.levels import (
    MCTS_LADDER,
    Ladder,
    analyse,
    choose_move,
    ladder_for,
    levels_for,
    mcts_ladder,
    play,
)
from slimetrail.ai.limits import Limit, PlayResult
from slimetrail.ai.mcts import MCTS, mcts
from slimetrail.ai.search import MATE, require_two_player_zero_sum, search

__all__ = [
    "MATE",
    "MCTS",
    "MCTS_LADDER",
    "Ladder",
    "Limit",
    "PlayResult",
    "analyse",
    "choose_move",
    "ladder_for",
    "levels_for",
    "mcts",
    "mcts_ladder",
    "play",
    "require_two_player_zero_sum",
    "search",
]
