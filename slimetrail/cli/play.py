"""``slimetrail play``: a game in the terminal, any game, any mix of humans and computers.

The seats are given one per player (``--seats human,computer:3,computer:5``), or for the
usual two-player game by the shortcuts ``--side`` (your seat; the others are computers at
``--level``) and ``--hotseat`` (every seat human).  The board is the game's own
``text_board()``, redrawn after every move; moves are typed as text in any spelling the game
reads (``c3``, ``ne``, ``b2-c3/e5``, ``swap``, ``pass``); ``moves`` lists the legal ones (a
Slither turn has a hundred and more: never printed unasked).  Players are named as the
position names them: after a swap, by the colour they now play.  Bad input gets a message and
the game goes on; end of input ends the program cleanly.  Every sentence, the board's legend
included, is said in ``--lang`` or the terminal's language (``slimetrail.cli.main`` sets it).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TextIO

from slimetrail import render
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
from slimetrail.core.i18n import N_
from slimetrail.i18n import LANGUAGES, gettext

# What a typed move is, then the commands: these words in every language, what they do said
# in the player's.
MOVE = (N_("<move>"), N_("make a move, e.g. c3 (any spelling the game reads; swap, pass)"))
COMMANDS = (
    ("moves", N_("list the legal moves")),
    ("hint", N_("ask the computer for a move")),
    ("undo", N_("take back your last move (and the computers' replies)")),
    ("board", N_("draw the board again")),
    ("help", N_("this text")),
    ("quit", N_("leave the game")),
)


def help_text() -> str:
    rows = [(gettext(MOVE[0]), MOVE[1]), *COMMANDS]
    lines = [gettext(N_("Commands:"))]
    lines += [f"  {word:<22} {gettext(what)}" for word, what in rows]
    return "\n".join(lines)


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
        "--lang",
        dest="language",
        choices=list(LANGUAGES),
        help="the game's language (default: the terminal's, from LANGUAGE, LC_ALL or LANG)",
    )
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

    def checked(value: int, template: str, **where: str) -> int:
        if value not in levels:
            raise GameOptionError(template, level=value, top=top, game=game.id, **where)
        return value

    checked(level, N_("--level %(level)s is not one of 1..%(top)s for %(game)s"))
    n = game.num_players
    if text is None:
        if hotseat:
            return [Seat()] * n
        if not 1 <= side <= n:
            raise GameOptionError(
                N_("--side %(side)s is not one of 1..%(players)s for %(game)s"),
                side=side,
                players=n,
                game=game.id,
            )
        return [Seat() if p == side else Seat(level) for p in range(1, n + 1)]
    words = [word.strip().lower() for word in text.split(",")]
    if len(words) != n:
        raise GameOptionError(
            N_("--seats %(seats)s: %(game)s has %(players)s players, not %(count)s"),
            seats=repr(text),
            game=game.id,
            players=n,
            count=len(words),
        )
    seats = []
    for word in words:
        kind, _, number = word.partition(":")
        if kind == "human" and not number:
            seats.append(Seat())
        elif kind == "computer":
            if number and not number.isdecimal():
                raise GameOptionError(
                    N_("--seats: %(seat)s: the level must be a whole number"), seat=repr(word)
                )
            template = N_("--seats %(seat)s: level %(level)s is not one of 1..%(top)s for %(game)s")
            seats.append(Seat(checked(int(number) if number else level, template, seat=word)))
        else:
            raise GameOptionError(
                N_("--seats: %(seat)s is not human, computer or computer:LEVEL"), seat=repr(word)
            )
    return seats


def run(args: argparse.Namespace) -> int:
    # The language (``--lang`` or the terminal's) is chosen by ``slimetrail.cli.main``.
    if args.time <= 0:
        raise GameError(N_("--time %(time)s must be positive"), time=args.time)
    if args.threads < 1:
        raise GameError(N_("--threads %(threads)s must be at least 1"), threads=args.threads)
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
            raise GameOptionError(
                N_("%(game)s needs %(players)s seats"),
                game=state.game.id,
                players=state.game.num_players,
            )
        self.state = state
        self.seats = seats
        self.seed = seed
        self.limit = Limit(time=time_limit, threads=threads)
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def label(self, player: int) -> str:
        """The name the position gives ``player`` (after a swap: their colour's)."""
        return gettext(self.state.player_name(player))

    def name(self, player: int) -> str:
        label = self.label(player)
        humans = sum(not seat.computer for seat in self.seats)
        if self.seats[player - 1].computer:
            return gettext(N_("%(name)s (computer)")) % {"name": label}
        return gettext(N_("%(name)s (you)")) % {"name": label} if humans == 1 else label

    def names(self) -> list[str]:
        return [self.label(p) for p in range(1, self.state.game.num_players + 1)]

    def say_renamed(self, before: list[str]) -> None:
        """After a move that renamed the players (a swap), who plays which colour now."""
        players = range(1, self.state.game.num_players + 1)
        changed = [p for p in players if self.label(p) != before[p - 1]]
        if not changed:
            return
        humans = [p for p in players if not self.seats[p - 1].computer]
        if len(humans) == 1 and humans[0] in changed:
            self.say(gettext(N_("You now play %(name)s.")) % {"name": self.label(humans[0])})
        else:
            now = [
                gettext(N_("player %(number)s %(name)s")) % {"number": p, "name": self.label(p)}
                for p in changed
            ]
            self.say(
                gettext(N_("Now playing: %(players)s.")) % {"players": join_names(now, gettext)}
            )

    def did_text(self, who: str, text: str) -> str:
        """What a move did, said of who made it: ``Computer swapped colours.``, ``Computer
        plays c3.``"""
        action = self.state.game.action_words.get(text)
        if action:
            return gettext(N_("%(who)s %(action)s.")) % {"who": who, "action": gettext(action)}
        return gettext(N_("%(who)s plays %(move)s.")) % {"who": who, "move": text}

    def play(self) -> int:
        game = self.state.game
        self.say(f"{gettext(game.title)} -- {game.spec}.")
        players = []
        for player, seat in enumerate(self.seats, 1):
            if seat.computer:
                what = gettext(N_("computer, level %(level)s")) % {"level": seat.level}
            else:
                what = gettext(N_("human"))
            name = gettext(game.player_names[player - 1])
            colour = gettext(render.colour_word(self.state.colours()[player - 1]))
            if colour != name:
                what = gettext(N_("%(seat)s, %(colour)s")) % {"seat": what, "colour": colour}
            players.append(f"{player} {name} ({what})")
        self.say(gettext(N_("Players: %(players)s.")) % {"players": "; ".join(players)})
        self.say(gettext(N_("Type a move, 'moves' for the legal moves, 'help' for the commands.")))
        self.show()
        while True:
            if self.state.is_over():
                self.say(self.result_text())
                return 0
            if self.seats[self.state.to_move - 1].computer:
                self.computer_move()
                continue
            self.stdout.write(gettext(N_("%(player)s to move")) % {"player": self.mover_text()})
            self.stdout.write("> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("\n" + gettext(N_("End of input: goodbye.")))
                return 0
            if not self.command(line.strip()):
                self.say(gettext(N_("Goodbye.")))
                return 0

    def mover_text(self) -> str:
        """The player to move, and the colour they wear where a swap changed it and their
        name does not say it (a game naming its players after their colours renames them)."""
        player = self.state.to_move
        name = self.name(player)
        now = self.state.colours()[player - 1]
        changed = now != self.state.game.player_colours[player - 1]
        colour = gettext(render.colour_word(now))
        if changed and colour != self.label(player):
            return gettext(N_("%(name)s as %(colour)s")) % {"name": name, "colour": colour}
        return name

    def show(self) -> None:
        self.say()
        self.say(self.state.text_board(gettext))
        if not self.state.is_over():
            moves = self.state.legal_move_strs()
            mover = {"player": self.mover_text()}
            # A forced move is worth saying; any longer list waits for 'moves'.
            if len(moves) == 1:
                only = N_("%(player)s to move: the only legal move is %(move)s.")
                self.say(gettext(only) % {**mover, "move": moves[0]})
            else:
                self.say(gettext(N_("%(player)s to move.")) % mover)

    def result_text(self) -> str:
        outcome = self.state.outcome()
        assert outcome is not None
        names = self.names()
        ending = outcome_sentence(self.state.game, outcome, names, gettext)
        text = gettext(N_("Game over. %(ending)s")) % {"ending": ending}
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
        alone = sum(seat.computer for seat in self.seats) == 1
        who = gettext(N_("Computer")) if alone else self.name(player)
        before = self.names()
        self.state.push(move)
        self.say(self.did_text(who, text))
        self.say_renamed(before)
        self.show()

    def command(self, text: str) -> bool:
        """Carry out one line of input; ``False`` to leave."""
        word = text.lower()
        if not word:
            such = {"move": self.state.legal_move_strs()[0]}
            self.say(gettext(N_("Type a move such as %(move)s, or 'help'.")) % such)
        elif word in ("quit", "exit", "q"):
            return False
        elif word in ("help", "?"):
            self.say(help_text())
        elif word == "moves":
            legal = " ".join(self.state.legal_move_strs())
            self.say(gettext(N_("Legal moves: %(moves)s")) % {"moves": legal})
        elif word == "board":
            self.show()
        elif word == "hint":
            from slimetrail.ai import choose_move, levels_for

            top = max(levels_for(self.state.game))
            move = choose_move(self.state, top, self.limit)
            self.say(gettext(N_("Hint: %(move)s")) % {"move": self.state.move_str(move)})
        elif word == "undo":
            self.undo()
        else:
            before = self.names()
            try:
                self.state.push_str(text)
            except GameError as exc:
                refusal = N_(
                    "Not a move: %(reason)s. Type 'moves' for the legal moves, 'help' for help."
                )
                self.say(gettext(refusal) % {"reason": exc.translated(gettext)})
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
            self.say(gettext(N_("Nothing to undo.")))
            return
        # Take back everything from the last human move on (that move and any replies).
        while len(self.state.move_stack) > human_moves[-1]:
            self.state.pop()
        self.say(gettext(N_("Move taken back.")))
        self.show()


def places_text(outcome: Outcome, name) -> str:
    """``Places: 1. Green (you), 2. Red (computer), 3. Blue (computer).``"""
    order = sorted(range(1, outcome.num_players + 1), key=outcome.place)
    places = gettext(N_(", ")).join(f"{outcome.place(p)}. {name(p)}" for p in order)
    return gettext(N_("Places: %(places)s.")) % {"places": places}
