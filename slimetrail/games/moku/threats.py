"""Threat-space search for forced wins in Slime-Moku.

In gomoku a four is a threat because the opponent must put a stone on its gap.  With the
slime it runs the other way round: the mover writes on the slime's cell ``S`` and walks the
slime to a cell ``P`` of their choice, where the OPPONENT writes next; the opponent then walks
it on to a cell ``Q`` next to ``P``, where the mover writes.  So a gap of the mover's row (a
cell completing k in a row, the "four") is won when the opponent has to walk the slime onto
it, which happens when every empty neighbour of ``P`` is such a gap.  The attacker's threats
are the steps ``P`` that leave the defender few replies ``Q`` that are not gaps (open threes
become two gaps side by side, and a ``P`` touching both leaves one reply fewer):

* a step onto a gap of the defender's row is never made: the defender writes there and wins;
* a reply onto a gap of the attacker's row loses for the defender, unless it fills the board
  (the slime's last cell takes no stone, so the game is drawn first);
* a stuck ``P`` (no empty neighbour) lets the defender lift the slime to any empty cell, so
  every empty cell is a reply.

The search is an AND/OR tree over those rules only: the attacker tries every step that
leaves at most ``branch`` safe replies, the defender every safe reply.  A move it returns is
a proven win within ``depth`` attacker moves; ``None`` proves nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from slimetrail.core.bits import cells_of
from slimetrail.games.moku.board import MokuBoard

if TYPE_CHECKING:
    from slimetrail.core.game import Move
    from slimetrail.games.moku.game import MokuState

DEFAULT_DEPTH = 4  # attacker moves
DEFAULT_BRANCH = 2  # safe replies an attacking step may leave


class ThreatSearch:
    """A threat-space search on one board, with a table of the positions already proved."""

    def __init__(
        self, board: MokuBoard, depth: int = DEFAULT_DEPTH, branch: int = DEFAULT_BRANCH
    ) -> None:
        self.board = board
        self.depth = depth
        self.branch = branch
        self.nodes = 0
        # (mine, theirs, slime) -> the most attacker moves known not to suffice
        self.failed: dict[tuple[int, int, int], int] = {}

    def winning_move(self, state: MokuState) -> Move | None:
        """A move of the side to move that wins by force within ``depth`` of their moves."""
        if state.outcome() is not None:
            return None
        mine, theirs = (
            (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
        )
        return self.attack(mine, theirs, state.empty, state.slime, self.depth)

    def attack(self, mine: int, theirs: int, empty: int, slime: int, depth: int) -> int | None:
        """The attacker's winning step from this node (attacker to move), or ``None``."""
        self.nodes += 1
        if not empty:
            return None  # the defender's reply filled the board: a draw
        board = self.board
        mine |= 1 << slime
        moves = board.neighbours[slime] & empty or empty
        if board.makes_row(mine, slime):
            return (moves & -moves).bit_length() - 1  # every move wins: take the first
        if not empty & (empty - 1):
            return None  # the last move fills the board: a draw
        key = (mine, theirs, slime)
        if self.failed.get(key, 0) >= depth:
            return None
        makes_row = board.makes_row
        neighbours = board.neighbours
        threats: list[tuple[int, list[int]]] = []
        for step in cells_of(moves):
            if makes_row(theirs | 1 << step, step):
                continue  # the defender would write there and win
            after = empty & ~(1 << step)
            replies = neighbours[step] & after or after
            safe = []
            for reply in cells_of(replies):
                # A reply onto the attacker's gap loses, unless it fills the board.
                if not (after & ~(1 << reply) and makes_row(mine | 1 << reply, reply)):
                    safe.append(reply)
                    if len(safe) > self.branch:
                        break
            if not safe:
                return step
            if depth > 1 and len(safe) <= self.branch:
                threats.append((step, safe))
        # Fewest safe replies first: the most forcing threats are the quickest to prove.
        threats.sort(key=lambda item: len(item[1]))
        for step, safe in threats:
            after = empty & ~(1 << step)
            defender = theirs | 1 << step
            if all(
                self.attack(mine, defender, after & ~(1 << reply), reply, depth - 1) is not None
                for reply in safe
            ):
                return step
        self.failed[key] = depth
        return None


def winning_move(
    state: MokuState, depth: int = DEFAULT_DEPTH, branch: int = DEFAULT_BRANCH
) -> Move | None:
    """A proven winning move for the side to move found by threats alone, or ``None``."""
    return ThreatSearch(state.game.board, depth, branch).winning_move(state)
