"""Slither and Advanced Slither (RULES.md section 6): importing this package registers both."""

from slimetrail.core.registry import register
from slimetrail.games.slither.game import AdvancedSlitherGame, SlitherGame

for _game in (SlitherGame, AdvancedSlitherGame):
    register(_game)
