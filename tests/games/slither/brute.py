"""Brute force over the engine's rules for the search and solver tests: who wins a small
position with perfect play, within a budget of positions (plain recursion, one table)."""

from __future__ import annotations

import random
from typing import cast

from slimetrail.core.registry import get_game
from slimetrail.games.slither.game import SlitherState


class OverBudget(Exception):
    pass


def wins_at_once(state: SlitherState, move) -> bool:
    """Whether ``move``, one of ``state.legal_moves()``, wins at once."""
    mover = state.to_move
    state.make(move)  # generated, so legal: push's checks would only cost time
    outcome = state.outcome()
    state.pop()
    return outcome is not None and outcome.winner == mover


def mover_wins(state: SlitherState, budget: int = 20_000) -> bool:
    """Whether the side to move wins; raises :class:`OverBudget` past ``budget`` positions.
    Swaps are not considered (use positions after the pie's moment)."""
    # Without swaps, the stones and the colour to move are the whole position.
    table: dict[tuple[int, ...], bool] = {}

    def solve(s: SlitherState) -> bool:
        key = (*s.stones, s.colour)
        if key in table:
            return table[key]
        if len(table) >= budget:
            raise OverBudget
        moves = [m for m in s.legal_moves() if m != "swap"]
        won = any(wins_at_once(s, m) for m in moves)
        for move in moves if not won else ():
            s.make(move)
            won = not solve(s)
            s.pop()
            if won:
                break
        table[key] = won
        return won

    return solve(state.copy())


def late_positions(game_id: str, n: int, seeds: range, back: int) -> list[SlitherState]:
    """Positions ``back`` plies before the end of seeded random games (pie off)."""
    found: list[SlitherState] = []
    for seed in seeds:
        rng = random.Random(seed)
        state = cast(SlitherState, get_game(game_id, size=str(n), pie="off").new_state())
        while not state.is_over():
            state.push(rng.choice(state.legal_moves()))
        for _ in range(min(back, len(state.move_stack))):
            state.pop()
        found.append(state)
    return found
