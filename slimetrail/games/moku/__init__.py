"""Slime-Moku: the slime of Slime Trail writes k in a row (RULES.md section 4).

Importing this package registers the game.
"""

from slimetrail.core.registry import register
from slimetrail.games.moku.game import SlimeMokuGame

register(SlimeMokuGame)
