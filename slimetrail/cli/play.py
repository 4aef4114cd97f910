"""``slimetrail play``: a game in the terminal against the computer, or hotseat.

The board is redrawn after every move: square boards as a grid with files and ranks, the
hex rhombus as a diamond (short diagonal horizontal) whose text rows are offset so that
neighbouring cells look adjacent.  Bad input gets a message and the game goes on; end of
input ends the program cleanly.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from slimetrail.cli.main import add_game_arguments, game_from_args
from slimetrail.core.game import GameError, State

HELP = """Commands:
  <cell> or <direction>  move the snail, e.g. c3 or ne
  moves                  list the legal moves
  hint                   ask the computer for a move
  undo                   take back your last move (and the computer's reply)
  board                  draw the board again
  help                   this text
  quit                   leave the game"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play in the terminal against the computer or hotseat",
        description="Play in the terminal against the computer (or two players, --hotseat).",
    )
    add_game_arguments(parser)
    parser.add_argument("--level", type=int, default=3, help="computer strength (default 3)")
    parser.add_argument("--side", type=int, choices=(1, 2), default=1, help="your side")
    parser.add_argument("--hotseat", action="store_true", help="two humans, no computer")
    parser.add_argument("--seed", type=int, help="seed for the computer's choices")
    parser.add_argument("--time", type=float, default=1.0, help="computer's time per move, s")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from slimetrail.ai import LEVELS, MAX_LEVEL

    if args.level not in LEVELS:
        raise GameError(f"--level {args.level} is not one of 1..{MAX_LEVEL}")
    if args.time <= 0:
        raise GameError(f"--time {args.time} must be positive")
    game = game_from_args(args)
    computer = None if args.hotseat else 3 - args.side
    return TerminalGame(game.new_state(), computer, args.level, args.seed, args.time).play()


class TerminalGame:
    def __init__(
        self,
        state: State,
        computer: int | None,
        level: int,
        seed: int | None,
        time_limit: float,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        self.state = state
        self.computer = computer
        self.level = level
        self.seed = seed
        self.time_limit = time_limit
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def name(self, player: int) -> str:
        label = self.state.game.player_names[player - 1]
        if self.computer is None:
            return label
        return f"{label} (computer)" if player == self.computer else f"{label} (you)"

    def play(self) -> int:
        game = self.state.game
        goals = ", ".join(
            f"{self.name(p)} owns {game.board.name(game.goals[p])} (marked {p})" for p in (1, 2)
        )
        self.say(f"{game.title} -- {game.spec}. {goals}.")
        self.say("Type 'help' for the commands.")
        self.show()
        while True:
            outcome = self.state.outcome()
            if outcome is not None:
                self.say(self.result_text())
                return 0
            if self.state.to_move == self.computer:
                self.computer_move()
                continue
            self.stdout.write(f"{self.name(self.state.to_move)} to move> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("\nEnd of input: goodbye.")
                return 0
            if not self.command(line.strip()):
                self.say("Goodbye.")
                return 0

    def show(self) -> None:
        self.say()
        self.say(self.state.text_board())
        if not self.state.is_over():
            moves = " ".join(self.state.legal_move_strs())
            self.say(f"{self.name(self.state.to_move)} to move; legal (*): {moves}")

    def result_text(self) -> str:
        outcome = self.state.outcome()
        assert outcome is not None
        how = {"goal": "the snail reached a goal", "stuck": "the snail is stuck"}.get(
            outcome.reason, outcome.reason
        )
        if outcome.winner is None:
            return f"Game over: a draw ({how})."
        return f"Game over: {self.name(outcome.winner)} wins ({how})."

    def computer_move(self) -> None:
        from slimetrail.ai import choose_move

        move = choose_move(self.state, self.level, time_limit=self.time_limit, seed=self.seed)
        text = self.state.move_str(move)
        self.state.push(move)
        self.say(f"Computer plays {text}.")
        self.show()

    def command(self, text: str) -> bool:
        """Carry out one line of input; ``False`` to leave."""
        word = text.lower()
        if not word:
            self.say("Type a move such as " + self.state.legal_move_strs()[0] + ", or 'help'.")
        elif word in ("quit", "exit", "q"):
            return False
        elif word in ("help", "?"):
            self.say(HELP)
        elif word == "moves":
            self.say("Legal moves: " + " ".join(self.state.legal_move_strs()))
        elif word == "board":
            self.show()
        elif word == "hint":
            from slimetrail.ai import MAX_LEVEL, choose_move

            move = choose_move(self.state, MAX_LEVEL, time_limit=self.time_limit)
            self.say(f"Hint: {self.state.move_str(move)}")
        elif word == "undo":
            self.undo()
        else:
            try:
                self.state.push_str(text)
            except GameError as exc:
                self.say(f"Not a move: {exc}. Type 'moves' for the legal moves, 'help' for help.")
                return True
            self.show()
        return True

    def undo(self) -> None:
        human_moves = [
            i for i in range(len(self.state.move_stack)) if self._mover(i) != self.computer
        ]
        if not human_moves:
            self.say("Nothing to undo.")
            return
        # Take back everything from the last human move on (their move and any reply).
        while len(self.state.move_stack) > human_moves[-1]:
            self.state.pop()
        self.say("Move taken back.")
        self.show()

    def _mover(self, ply: int) -> int:
        """The player who made the move at index ``ply`` of the move stack (turns alternate)."""
        behind = len(self.state.move_stack) - ply
        return self.state.to_move if behind % 2 == 0 else 3 - self.state.to_move
