"""The built-in games: one folder each, registered by importing it.

Adding a game is one folder below this package plus one line in this list.
"""

from importlib import import_module

GAME_PACKAGES = [
    "slimetrail.games.trail",
    "slimetrail.games.moku",
    "slimetrail.games.snakepit",
    "slimetrail.games.slither",
]

for _name in GAME_PACKAGES:
    import_module(_name)
