"""A UGI engine (the Universal Game Interface of kz04px/cutegames, after UCI).

:class:`UgiEngine` reads one command line at a time through :meth:`UgiEngine.handle` and
writes its replies through an output callback, so it is testable without pipes;
:func:`run_stdio` connects it to stdin/stdout.  Searches run in a thread, so ``stop``,
``isready`` and ``query`` are answered while one is going on.  Bad input never kills the
engine and never changes the position: it is answered by ``info string error ...``.

``go`` with a clock (``p1time`` ...), with ``movetime`` or with no limits plays at the
``Level`` option, the same player as the site's and the benchmarks' (the top level asks the
books and the exact solver first and reports a proven result as ``score mate N``; then its
own search, e.g. Slime-Moku's and the big Slime Trail boards' MCTS, answers with one ``info``
line); ``go depth|nodes|infinite`` is an analysis search at full strength (alpha-beta for
the Slime Trail games, MCTS for the others, which take ``nodes``/``infinite`` but not
``depth``).  ``stop`` ends the top level's solver proof and any analysis at once with the
best move known; a level's timed search ends at its time.  ``Threads`` gives the searches
that can use them that many cores (:attr:`slimetrail.ai.Limit.threads`).

UGI is a two-player protocol: a game for more players is refused (``slimetrail ugi --game
toy-three`` exits with an error; ``setoption name Game value toy-three`` answers ``info string
error``).  The game's options are offered as ``option name <Name>`` from its declarations
(``type combo`` where the game lists the values); ``swap`` and ``pass`` are ordinary moves.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from slimetrail import __version__
from slimetrail.ai import Limit, PlayResult, analyse, choose_move, ladder_for, levels_for, play
from slimetrail.ai.limits import clock_budget
from slimetrail.ai.search import mate_from_plies
from slimetrail.core.game import Game, GameError, Move, State
from slimetrail.core.registry import GAMES, get_game

ENGINE_NAME = f"Slimetrail {__version__}"
ENGINE_AUTHOR = "the Slimetrail developers"
GO_NUMBERS = ("movetime", "depth", "nodes", "p1time", "p2time", "p1inc", "p2inc", "perft")


# Engine options of their own; a game's options come from its declarations.
ENGINE_OPTIONS = ("level", "game", "seed", "threads")
MAX_THREADS = os.cpu_count() or 1


class UgiError(ValueError):
    """A command that cannot be carried out; reported as ``info string error ...``."""


def check_ugi_game(game: Game) -> None:
    """Raise :class:`GameError` for a game UGI cannot speak (more than two players)."""
    if game.num_players != 2:
        raise GameError(f"UGI speaks two-player games; {game.id} has {game.num_players} players")


def ugi_games() -> list[str]:
    return sorted(game_id for game_id, cls in GAMES.items() if cls.num_players == 2)


class UgiEngine:
    def __init__(self, output: Callable[[str], None], game: Game | None = None) -> None:
        self._write = output
        self._lock = threading.Lock()
        self.game = game if game is not None else get_game("slimetrail")
        check_ugi_game(self.game)
        self.state: State = self.game.new_state()
        self.level = self.top_level
        self.seed: int | None = None
        self.threads = 1
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._infinite = False
        self._warm = False

    # -- input ---------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Carry out one command line; returns ``False`` after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "quit":
            self.stop_search()
            return False
        handler = getattr(self, f"_cmd_{command}", None)
        try:
            if handler is None:
                raise UgiError(f"unknown command {command!r}")
            handler(args)
        except (UgiError, GameError) as exc:
            self.send(f"info string error {exc}")
        except Exception as exc:  # never die on input; say what went wrong
            self.send(f"info string error {command}: {type(exc).__name__}: {exc}")
        return True

    def send(self, text: str) -> None:
        with self._lock:
            self._write(text)

    @property
    def top_level(self) -> int:
        return max(levels_for(self.game))

    @property
    def searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _idle(self, command: str) -> None:
        """Let a finite search finish before a command that changes or starts something."""
        if self.searching and self._infinite:
            raise UgiError(f"{command}: an infinite search is running (send stop first)")
        self.wait()

    # -- commands ------------------------------------------------------------------------

    def _cmd_ugi(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        top = self.top_level
        self.send(f"option name Level type spin default {top} min 1 max {top}")
        games = " ".join(f"var {g}" for g in ugi_games())
        self.send(f"option name Game type combo default {self.game.id} {games}")
        texts = self.game.option_texts()
        for spec in self.game.option_specs:
            value = texts[spec.name]
            if spec.texts():
                choices = " ".join(f"var {c}" for c in spec.texts())
                self.send(f"option name {spec.name.title()} type combo default {value} {choices}")
            else:
                self.send(f"option name {spec.name.title()} type string default {value}")
        self.send("option name Seed type string default none")
        self.send(f"option name Threads type spin default 1 min 1 max {MAX_THREADS}")
        self.send("ugiok")

    def _cmd_isready(self, args: list[str]) -> None:
        # The protocol's moment for slow set-up: the game compiles (or loads) its kernels.
        if not self.searching:
            self._warm_up()
        self.send("readyok")

    def _warm_up(self) -> None:
        if self._warm:
            return
        self._warm = True
        try:
            type(self.game).warm_up()
        except Exception as exc:  # the search still works without the kernels
            self.send(f"info string error solver unavailable: {exc}")

    def _cmd_uginewgame(self, args: list[str]) -> None:
        self._idle("uginewgame")
        self.state = self.game.new_state()

    def _cmd_setoption(self, args: list[str]) -> None:
        self._idle("setoption")
        if len(args) < 4 or args[0] != "name" or "value" not in args:
            raise UgiError("setoption: expected 'setoption name <name> value <value>'")
        split = args.index("value")
        name = " ".join(args[1:split]).lower()
        value = " ".join(args[split + 1 :])
        game_options = {spec.name.lower(): spec.name for spec in self.game.option_specs}
        if name == "level":
            level = _number(value, "Level")
            if level not in levels_for(self.game):
                raise UgiError(f"Level {value!r} is not one of 1..{self.top_level}")
            self.level = level
        elif name == "seed":
            self.seed = None if value.lower() == "none" else _number(value, "Seed")
        elif name == "threads":
            threads = _number(value, "Threads")
            if not 1 <= threads <= MAX_THREADS:
                raise UgiError(f"Threads {value!r} is not one of 1..{MAX_THREADS}")
            self.threads = threads
        elif name == "game":
            self._set_game(value.lower(), {})
        elif name in game_options:
            options = dict(self.game.options)
            options[game_options[name]] = value
            self._set_game(self.game.id, options)
        else:
            known = ", ".join(n.title() for n in (*ENGINE_OPTIONS, *game_options))
            raise UgiError(f"setoption: unknown option {name!r} (options: {known})")

    def _set_game(self, game_id: str, options: dict[str, Any]) -> None:
        game = get_game(game_id, **options)  # raises GameOptionError, naming what was wrong
        check_ugi_game(game)
        if type(game) is not type(self.game):
            self._warm = False  # another game, other kernels
        self.game, self.state = game, game.new_state()
        self.level = min(self.level, self.top_level)

    def _cmd_position(self, args: list[str]) -> None:
        self._idle("position")
        if not args or args[0] not in ("startpos", "fen"):
            raise UgiError("position: expected 'startpos' or 'fen <fen>', then 'moves ...'")
        if "moves" in args:
            split = args.index("moves")
            setup, moves = args[:split], args[split + 1 :]
        else:
            setup, moves = args, []
        if setup[0] == "startpos":
            if len(setup) > 1:
                raise UgiError(f"position: unexpected {' '.join(setup[1:])!r} after startpos")
            state = self.game.new_state()
        else:
            if len(setup) < 2:
                raise UgiError("position fen: the fen is missing")
            state = self.game.state_from_fen(" ".join(setup[1:]))
        for number, text in enumerate(moves, 1):
            try:
                state.push_str(text)
            except GameError as exc:
                raise UgiError(f"position: move {number} {text!r}: {exc}") from None
        self.state = state

    def _cmd_query(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UgiError("query: expected one of gameover, p1turn, result")
        outcome = self.state.outcome()
        if args[0] == "gameover":
            self.send(f"response {'true' if outcome is not None else 'false'}")
        elif args[0] == "p1turn":
            self.send(f"response {'true' if self.state.to_move == 1 else 'false'}")
        elif args[0] == "result":
            if outcome is None:
                answer = "none"
            elif outcome.winner is None:
                answer = "draw"
            else:
                answer = f"p{outcome.winner}win"
            self.send(f"response {answer}")
        else:
            raise UgiError(f"query: unknown question {args[0]!r} (gameover, p1turn, result)")

    def _cmd_stop(self, args: list[str]) -> None:
        self.stop_search()

    def _cmd_go(self, args: list[str]) -> None:
        self._idle("go")
        limits = _parse_go(args)
        if "perft" in limits:
            self._perft(limits["perft"])
            return
        state = self.state.copy()
        if not state.legal_moves():
            self.send("info string error go: the game is over")
            self.send("bestmove none")
            return
        # A controller that skipped ``isready``: the kernels load now, not in the move's time.
        self._warm_up()
        self._stop = threading.Event()
        self._infinite = bool(limits.get("infinite"))
        self._thread = threading.Thread(
            target=self._search_thread, args=(state, limits, self._stop), daemon=True
        )
        self._thread.start()

    def stop_search(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def wait(self) -> None:
        """Wait for a running search (not an infinite one) to finish."""
        if self._thread is not None and not self._infinite:
            self._thread.join()
            self._thread = None

    # -- work ----------------------------------------------------------------------------

    def _perft(self, depth: int) -> None:
        from slimetrail.core.perft import divide

        counts = divide(self.state, depth)
        for move, count in counts.items():
            self.send(f"{move}: {count}")
        self.send("")
        self.send(f"Nodes searched: {sum(counts.values()) if depth else 1}")

    def _search_thread(self, state: State, limits: dict[str, Any], stop: threading.Event) -> None:
        try:
            move = self._think(state, limits, stop)
        except Exception as exc:  # the engine must answer even if the search fails
            self.send(f"info string error search failed: {exc}")
            move = state.legal_moves()[0]
        if limits.get("infinite"):
            stop.wait()  # UCI: with 'go infinite' the best move waits for 'stop'
        self.send(f"bestmove {state.move_str(move)}")

    def _think(self, state: State, limits: dict[str, Any], stop: threading.Event) -> Move:
        started = time.perf_counter()
        if not any(k in limits for k in ("depth", "nodes", "infinite")):
            if "movetime" in limits:
                budget = limits["movetime"] / 1000
            else:
                budget = _time_budget(state.to_move, limits)
            if self.level < self.top_level:
                limit = Limit(time=budget, threads=self.threads)
                move = choose_move(state, self.level, limit, seed=self.seed)
                self.send(f"info string level {self.level}")
                return move
            # The best move known if ``stop`` comes during the solver's proof: a quick look.
            known = analyse(state, Limit(time=0.02, depth=2)).move or state.legal_moves()[0]
            solved = self._solved(state, budget, started, stop)
            if solved is not None:
                return solved
            if stop.is_set():
                return known
            movetime = max(0.001, budget - (time.perf_counter() - started))
            # The top level's own player: where it is not the analysis search (Slime-Moku's
            # and the big boards' MCTS, not alpha-beta) the analysis was the weaker one.
            limit = Limit(time=movetime, threads=self.threads)
            played = play(state, self.level, limit, seed=self.seed)
            self.send(_info_line(state, played))
            return played.move if played.move is not None else known

        def info(result: PlayResult) -> None:
            self.send(_info_line(state, result))

        limit = Limit(nodes=limits.get("nodes"), depth=limits.get("depth"), threads=self.threads)
        result = analyse(state, limit, stop=stop, on_info=info)
        return result.move if result.move is not None else state.legal_moves()[0]

    def _solved(
        self, state: State, budget: float, started: float, stop: threading.Event
    ) -> Move | None:
        """The books' or the solver's move, reported with its proven score, if they answer
        within the budget (and before ``stop``)."""
        solved = ladder_for(state.game).solved
        choice = None if solved is None else solved(state, started + budget, 20_000, stop)
        if choice is None:
            return None
        elapsed = int((time.perf_counter() - started) * 1000)
        move_text = state.move_str(choice.move)
        if choice.value == "draw":
            self.send(f"info depth 0 score cp 0 nodes {choice.nodes} time {elapsed} pv {move_text}")
        elif choice.plies is None:
            # Proven, but the distance was not computed in time: no N to give.
            self.send(f"info string proven {choice.value} for the side to move")
        else:
            mate = mate_from_plies(choice.value == "win", choice.plies)
            self.send(
                f"info depth {choice.plies} score mate {mate} nodes {choice.nodes}"
                f" time {elapsed} pv {move_text}"
            )
        return choice.move


def _number(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UgiError(f"{what}: {text!r} is not a whole number") from None


def _parse_go(args: list[str]) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word == "infinite":
            limits["infinite"] = True
            i += 1
            continue
        if word not in GO_NUMBERS:
            raise UgiError(f"go: unknown parameter {word!r}")
        if i + 1 >= len(args):
            raise UgiError(f"go: {word} needs a number")
        value = _number(args[i + 1], f"go {word}")
        low = 0 if word in ("p1time", "p2time", "p1inc", "p2inc", "perft") else 1
        if value < low:
            raise UgiError(f"go {word}: {value} is below {low}")
        limits[word] = value
        i += 2
    return limits


def _time_budget(player: int, limits: dict[str, Any]) -> float:
    """Seconds to think for the clock in ``limits``; one second without a clock."""
    remaining = limits.get(f"p{player}time")
    if remaining is None:
        return 1.0
    return clock_budget(remaining, limits.get(f"p{player}inc", 0))


def _info_line(state: State, result: PlayResult) -> str:
    """``info`` for a search's answer; the fields it has (a level's move may have no score
    or depth)."""
    words = ["info"]
    if result.depth is not None:
        words += ["depth", str(result.depth)]
    if result.mate is not None:
        words += ["score", "mate", str(result.mate)]
    elif result.score is not None:
        words += ["score", "cp", str(result.score)]
    words += ["nodes", str(result.nodes), "time", str(int(result.seconds * 1000))]
    pv_state = state.copy()
    pv = []
    for move in result.pv or ([result.move] if result.move is not None else []):
        pv.append(pv_state.move_str(move))
        pv_state.push(move)
    return " ".join([*words, "pv", *pv] if pv else words)


def run_stdio(game: Game | None = None) -> int:
    """Speak UGI on stdin/stdout until ``quit`` or end of input."""
    import sys

    def write(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    engine = UgiEngine(write, game)
    for line in sys.stdin:
        if not engine.handle(line):
            return 0
    engine.stop_search()
    return 0
