"""Slimetrail: the Slime Trail family of games and Slither -- rules, AI, solver, web play."""

from slimetrail.core.game import (
    Game,
    GameError,
    GameOptionError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
)
from slimetrail.core.registry import GAMES, get_game, parse_game_spec

__all__ = [
    "GAMES",
    "Game",
    "GameError",
    "GameOptionError",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Move",
    "Outcome",
    "State",
    "get_game",
    "parse_game_spec",
]
__version__ = "0.1.0"
