"""Snake Pit, the three-player game of RULES.md section 5; importing this package registers it."""

from slimetrail.core.registry import register
from slimetrail.games.snakepit.game import SnakePitGame

register(SnakePitGame)
