"""The Slime Trail family: Slimetrail (Rastros), hex Slime Trail, Square Slime Trail.

Importing this package registers the three games; the exact solver and its opening books
live in :mod:`slimetrail.games.trail.solver`.
"""

from slimetrail.core.registry import register
from slimetrail.games.trail.game import HexSlimeTrailGame, SlimetrailGame, SquareSlimeTrailGame

for _game in (SlimetrailGame, HexSlimeTrailGame, SquareSlimeTrailGame):
    register(_game)
