"""``slimetrail play``: a game in the terminal, any game, any mix of humans and computers.

The seats are given one per player (``--seats human,computer:3,computer:5``), or for the
usual two-player game by the shortcuts ``--side`` (your seat; the others are computers at
``--level``) and ``--hotseat`` (every seat human).  The board is the game's own
``text_board()``, redrawn after every move; moves are typed as text in any spelling the game
reads (``c3``, ``ne``, ``b2-c3/e5``, ``swap``, ``pass``); ``moves`` lists the legal ones (a
Slither turn has a hundred and more: never printed unasked).  Players are named as the
position names them: after a swap, by the colour they now play.  Bad input gets a message and
the game goes on; end of input ends the program cleanly.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TextIO

from slimetrail.ai.limits import Limit
from slimetrail.cli.main import add_game_arguments, game_from_args
from slimetrail.core.game import (
    Game,
    GameError,
    GameOptionError,
    Outcome,
    State,
    join_names,
    outcome_sentence,
)

HELP = """Commands:
  <move>                 make a move, e.g. c3 (any spelling the game reads; swap, pass)
  moves                  list the legal moves
  hint                   ask the computer for a move
  undo                   take back your last move (and the computers' replies)
  board                  draw the board again
  help                   this text
  quit                   leave the game"""


@dataclass(frozen=True)
class Seat:
    """A human, or the computer at ``level``."""

    level: int | None = None

    @property
    def computer(self) -> bool:
        return self.level is not None


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play in the terminal against the computer or hotseat",
        description="Play in the terminal: any game, each seat a human or the computer.",
    )
    parser.add_argument(
        "--seats",
        help="one seat per player, e.g. human,computer:3,computer:5 (computer = --level)",
    )
    parser.add_argument("--level", type=int, default=3, help="computer strength (default 3)")
    parser.add_argument("--side", type=int, default=1, help="your seat (default 1)")
    parser.add_argument("--hotseat", action="store_true", help="every seat human, no computer")
    parser.add_argument("--seed", type=int, help="seed for the computer's choices")
    parser.add_argument("--time", type=float, default=1.0, help="computer's time per move, s")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="cores for the computer's search where it can use them (default 1)",
    )
    add_game_arguments(parser)
    parser.set_defaults(func=run)


def parse_seats(game: Game, text: str | None, side: int, level: int, hotseat: bool) -> list[Seat]:
    """The seats from ``--seats``, or from the ``--side``/``--hotseat`` shortcuts."""
    from slimetrail.ai import levels_for

    levels = levels_for(game)
    top = max(levels)

    def checked(value: int, where: str) -> int:
        if value not in levels:
            raise GameOptionError(f"{where} {value} is not one of 1..{top} for {game.id}")
        return value

    checked(level, "--level")
    n = game.num_players
    if text is None:
        if hotseat:
            return [Seat()] * n
        if not 1 <= side <= n:
            raise GameOptionError(f"--side {side} is not one of 1..{n} for {game.id}")
        return [Seat() if p == side else Seat(level) for p in range(1, n + 1)]
    words = [word.strip().lower() for word in text.split(",")]
    if len(words) != n:
        raise GameOptionError(f"--seats {text!r}: {game.id} has {n} players, not {len(words)}")
    seats = []
    for word in words:
        kind, _, number = word.partition(":")
        if kind == "human" and not number:
            seats.append(Seat())
        elif kind == "computer":
            if number and not number.isdecimal():
                raise GameOptionError(f"--seats: {word!r}: the level must be a whole number")
            seats.append(Seat(checked(int(number) if number else level, f"--seats {word}: level")))
        else:
            raise GameOptionError(f"--seats: {word!r} is not human, computer or computer:LEVEL")
    return seats


def run(args: argparse.Namespace) -> int:
    if args.time <= 0:
        raise GameError(f"--time {args.time} must be positive")
    if args.threads < 1:
        raise GameError(f"--threads {args.threads} must be at least 1")
    game = game_from_args(args)
    seats = parse_seats(game, args.seats, args.side, args.level, args.hotseat)
    return TerminalGame(game.new_state(), seats, args.seed, args.time, threads=args.threads).play()


class TerminalGame:
    def __init__(
        self,
        state: State,
        seats: list[Seat],
        seed: int | None,
        time_limit: float,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        threads: int = 1,
    ) -> None:
        if len(seats) != state.game.num_players:
            raise GameOptionError(f"{state.game.id} needs {state.game.num_players} seats")
        self.state = state
        self.seats = seats
        self.seed = seed
        self.limit = Limit(time=time_limit, threads=threads)
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def name(self, player: int) -> str:
        label = self.state.player_name(player)
        humans = sum(not seat.computer for seat in self.seats)
        if self.seats[player - 1].computer:
            return f"{label} (computer)"
        return f"{label} (you)" if humans == 1 else label

    def colour_note(self, player: int) -> str:
        """`` as white`` where a swap changed the colour this player wears and their name
        does not say it (a game naming its players after their colours renames them)."""
        now = self.state.colours()[player - 1]
        changed = now != self.state.game.player_colours[player - 1]
        return f" as {now}" if changed and now != self.state.player_name(player).lower() else ""

    def names(self) -> list[str]:
        return [self.state.player_name(p) for p in range(1, self.state.game.num_players + 1)]

    def say_renamed(self, before: list[str]) -> None:
        """After a move that renamed the players (a swap), who plays which colour now."""
        players = range(1, self.state.game.num_players + 1)
        changed = [p for p in players if self.state.player_name(p) != before[p - 1]]
        if not changed:
            return
        humans = [p for p in players if not self.seats[p - 1].computer]
        if len(humans) == 1 and humans[0] in changed:
            self.say(f"You now play {self.state.player_name(humans[0])}.")
        else:
            now = [f"player {p} {self.state.player_name(p)}" for p in changed]
            self.say(f"Now playing: {join_names(now)}.")

    def did_text(self, text: str) -> str:
        """What a move does, as said after who made it: ``swapped colours``, ``plays c3``."""
        return self.state.game.action_words.get(text) or f"plays {text}"

    def play(self) -> int:
        game = self.state.game
        self.say(f"{game.title} -- {game.spec}.")
        players = []
        for player, seat in enumerate(self.seats, 1):
            what = f"computer, level {seat.level}" if seat.computer else "human"
            colour = self.state.colours()[player - 1]
            players.append(f"{player} {game.player_names[player - 1]} ({what}, {colour})")
        self.say("Players: " + "; ".join(players) + ".")
        self.say("Type a move, 'moves' for the legal moves, 'help' for the commands.")
        self.show()
        while True:
            if self.state.is_over():
                self.say(self.result_text())
                return 0
            if self.seats[self.state.to_move - 1].computer:
                self.computer_move()
                continue
            self.stdout.write(f"{self.mover_text()} to move> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("\nEnd of input: goodbye.")
                return 0
            if not self.command(line.strip()):
                self.say("Goodbye.")
                return 0

    def mover_text(self) -> str:
        player = self.state.to_move
        return self.name(player) + self.colour_note(player)

    def show(self) -> None:
        self.say()
        self.say(self.state.text_board())
        if not self.state.is_over():
            moves = self.state.legal_move_strs()
            # A forced move is worth saying; any longer list waits for 'moves'.
            only = f": the only legal move is {moves[0]}" if len(moves) == 1 else ""
            self.say(f"{self.mover_text()} to move{only}.")

    def result_text(self) -> str:
        outcome = self.state.outcome()
        assert outcome is not None
        players = range(1, outcome.num_players + 1)
        names = [self.state.player_name(p) for p in players]
        text = f"Game over. {outcome_sentence(self.state.game, outcome, names)}"
        if outcome.num_players > 2:
            text += " " + places_text(outcome, self.name)
        return text

    def computer_move(self) -> None:
        from slimetrail.ai import choose_move

        player = self.state.to_move
        level = self.seats[player - 1].level
        assert level is not None
        move = choose_move(self.state, level, self.limit, seed=self.seed)
        text = self.state.move_str(move)
        who = "Computer" if sum(seat.computer for seat in self.seats) == 1 else self.name(player)
        before = self.names()
        self.state.push(move)
        self.say(f"{who} {self.did_text(text)}.")
        self.say_renamed(before)
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
            from slimetrail.ai import choose_move, levels_for

            top = max(levels_for(self.state.game))
            move = choose_move(self.state, top, self.limit)
            self.say(f"Hint: {self.state.move_str(move)}")
        elif word == "undo":
            self.undo()
        else:
            before = self.names()
            try:
                self.state.push_str(text)
            except GameError as exc:
                self.say(f"Not a move: {exc}. Type 'moves' for the legal moves, 'help' for help.")
                return True
            self.say_renamed(before)
            self.show()
        return True

    def movers(self) -> list[int]:
        """Who made each move of the stack (turns need not alternate: replay to know)."""
        start = self.state.copy()
        moves = start.move_stack
        for _ in moves:
            start.pop()
        players = []
        for move in moves:
            players.append(start.to_move)
            start.push(move)
        return players

    def undo(self) -> None:
        human_moves = [
            i for i, player in enumerate(self.movers()) if not self.seats[player - 1].computer
        ]
        if not human_moves:
            self.say("Nothing to undo.")
            return
        # Take back everything from the last human move on (that move and any replies).
        while len(self.state.move_stack) > human_moves[-1]:
            self.state.pop()
        self.say("Move taken back.")
        self.show()


def places_text(outcome: Outcome, name) -> str:
    """``Places: 1. Green (you), 2. Red (computer), 3. Blue (computer).``"""
    order = sorted(range(1, outcome.num_players + 1), key=outcome.place)
    return "Places: " + ", ".join(f"{outcome.place(p)}. {name(p)}" for p in order) + "."
