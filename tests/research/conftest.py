"""The research code's tests check it against the independent Slime-Moku model that lives with
the game's own tests (tests/games/slime_moku/moku_model.py): make it importable from here too,
whatever order pytest collects the folders in."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "games" / "slime_moku"))
