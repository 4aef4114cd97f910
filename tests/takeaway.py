"""A take-away toy for the searches, not registered: turns that do not alternate.

``n`` players share a pile of stones.  The mover takes 1, 2 or 3 (never more than are
left): taking 1 or 3 passes the turn to the next player, taking 2 skips the next player
(with two players: the mover moves again); no one may take 2 right after a 2.  Whoever
takes the last stone wins.  In a finished position ``to_move`` keeps what the rule would say, which
is often the winner -- a search must not read anything into it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from slimetrail.core.game import (
    EndReason,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
    TurnShape,
)


class TakeAway(Game):
    id = "take-away"
    title = "Take-away"
    turn = TurnShape(repeats=True)
    end_reasons: ClassVar = {"last stone": EndReason("%(winner)s took the last stone")}

    def __init__(self, players: int = 2, pile: int = 10) -> None:
        super().__init__()
        self.players, self.pile = players, pile
        self.zero_sum = players == 2  # the instance attribute wins over the class one

    @property
    def num_players(self) -> int:  # type: ignore[override]
        return self.players

    def new_state(self) -> TakeAwayState:
        return TakeAwayState(self, self.pile, 1)

    def state_from_fen(self, fen: str) -> TakeAwayState:
        pile, _, rest = fen.partition(" ")
        mover, _, after_two = rest.partition(" ")
        if (
            not pile.isdigit()
            or not mover.isdigit()
            or not 1 <= int(mover) <= self.players
            or after_two not in ("0", "1")
        ):
            raise InvalidPositionError(f"position {fen!r}: expected '<pile> <mover> <0|1>'")
        state = TakeAwayState(self, int(pile), int(mover))
        state.after_two = after_two == "1"
        return state

    def describe_board(self) -> dict[str, Any]:
        return {"shape": "square", "cells": []}


class TakeAwayState(State):
    game: TakeAway

    def __init__(self, game: TakeAway, pile: int, mover: int) -> None:
        self.game, self.pile, self.mover = game, pile, mover
        self.after_two = False
        self.stack: list[tuple[int, int, bool]] = []  # (stones taken, mover, after_two) before

    @property
    def to_move(self) -> int:
        return self.mover

    @property
    def move_stack(self) -> list[Move]:
        return [taken for taken, _, _ in self.stack]

    def legal_moves(self) -> list[Move]:
        return [n for n in range(1, min(3, self.pile) + 1) if not (n == 2 and self.after_two)]

    def push(self, move: Move) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot take {move!r}")
        assert isinstance(move, int)
        self.stack.append((move, self.mover, self.after_two))
        self.pile -= move
        self.after_two = move == 2
        self.mover = (self.mover - 1 + (2 if move == 2 else 1)) % self.game.players + 1

    def pop(self) -> Move:
        taken, self.mover, self.after_two = self.stack.pop()
        self.pile += taken
        return taken

    def outcome(self) -> Outcome | None:
        if self.pile or not self.stack:
            return None
        return Outcome.win(self.stack[-1][1], self.game.players, reason="last stone")

    def move_str(self, move: Move) -> str:
        return str(move)

    def parse_move(self, text: str) -> Move:
        if not text.strip().isdigit():
            raise InvalidMoveError(f"{text!r} is not a number of stones")
        move = int(text)
        if move not in self.legal_moves():
            raise IllegalMoveError(f"cannot take {move}")
        return move

    def fen(self) -> str:
        return f"{self.pile} {self.mover} {int(self.after_two)}"

    def key(self) -> int:
        return self.pile * 32 + self.mover * 2 + self.after_two

    def copy(self) -> TakeAwayState:
        clone = TakeAwayState(self.game, self.pile, self.mover)
        clone.after_two = self.after_two
        clone.stack = list(self.stack)
        return clone

    def view(self) -> dict[str, Any]:
        return {"marks": {}, "path": [], "last": []}

    def text_board(self, gettext=None) -> str:
        return f"{self.pile} stones, player {self.mover} to move"


def winner_with_best_play(pile: int, mover: int, after_two: bool = False) -> tuple[int, int]:
    """For two players, written from the rules alone: (the winner, plies to the end under
    best play: the winner hurries, the loser delays)."""
    best: tuple[int, int] | None = None
    for taken in (1, 2, 3):
        if taken > pile or (taken == 2 and after_two):
            continue
        nxt = mover if taken == 2 else 3 - mover
        if taken == pile:
            result = (mover, 1)
        else:
            winner, plies = winner_with_best_play(pile - taken, nxt, taken == 2)
            result = (winner, plies + 1)
        if best is None:
            best = result
        elif (result[0] == mover) != (best[0] == mover):
            best = result if result[0] == mover else best
        elif result[0] == mover:
            best = min(best, result, key=lambda r: r[1])
        else:
            best = max(best, result, key=lambda r: r[1])
    assert best is not None
    return best
