"""The UGI engine: in-process through its output callback, and as ``slimetrail ugi``."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

import pytest

from slimetrail.core.perft import divide
from slimetrail.core.registry import get_game
from slimetrail.engine.ugi import UgiEngine, _time_budget
from slimetrail.games.trail import solver


class Engine:
    """``slimetrail ugi`` in a subprocess, read line by line with timeouts."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slimetrail", "ugi", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str, timeout: float = 30.0) -> list[str]:
        """Every line up to and including the first starting with ``prefix``."""
        out = []
        end = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            out.append(line)
            if line.startswith(prefix):
                return out

    def ask(self, line: str) -> str:
        self.send(line)
        return self.until("response")[-1]

    def close(self) -> int:
        self.send("quit")
        try:
            return self.proc.wait(timeout=20)
        finally:
            self.proc.kill()
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()


@pytest.fixture
def engine():
    process = Engine()
    yield process
    process.close()


def test_scripted_session_through_the_subprocess(engine):
    engine.send("ugi")
    hello = engine.until("ugiok")
    assert hello[0].startswith("id name ")
    assert any(line.startswith("id author ") for line in hello)
    options = [line for line in hello if line.startswith("option name ")]
    for name in ("Level", "Game", "Size", "Rules"):
        assert any(line.startswith(f"option name {name} type ") for line in options)
    engine.send("isready")
    assert engine.until("readyok") == ["readyok"]
    engine.send("uginewgame")
    engine.send("position startpos")
    assert engine.ask("query p1turn") == "response true"
    assert engine.ask("query gameover") == "response false"
    assert engine.ask("query result") == "response none"

    # Bad input: an error line each, the engine lives on and the position is kept.
    engine.send("position startpos moves c3")
    for bad in (
        "frobnicate",
        "position startpos moves c3 zz9",
        "position startpos moves c3 c3",
        "position fen not-a-fen 1",
        "position",
        "go depth x",
        "go depth",
        "go sideways 3",
        "setoption name Level value 99",
        "setoption name Size value 8",
        "setoption name Colour value red",
        "query weather",
    ):
        engine.send(bad)
        error = engine.until("info string error")[-1]
        assert len(error) > len("info string error ")
    assert engine.ask("query p1turn") == "response false"  # still after c3

    # perft from the position after c3, against the core's divide.
    engine.send("go perft 2")
    lines = engine.until("Nodes searched:")
    state = get_game("slimetrail").new_state()
    state.push_str("c3")
    expected = divide(state, 2)
    assert lines[-2] == ""
    assert dict(line.split(": ") for line in lines[:-2]) == {k: str(v) for k, v in expected.items()}
    assert lines[-1] == f"Nodes searched: {sum(expected.values())}"

    # go depth: one info line per depth, then a legal bestmove.
    engine.send("position startpos moves e5")
    engine.send("go depth 3")
    lines = engine.until("bestmove")
    infos = [line for line in lines if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in infos] == [1, 2, 3]
    assert all(" score " in line and " nodes " in line and " pv " in line for line in infos)
    state = get_game("slimetrail").new_state()
    state.push_str("e5")
    assert lines[-1].split()[1] in state.legal_move_strs()

    # go movetime returns on its own.
    engine.send("go movetime 150")
    assert engine.until("bestmove", timeout=20)[-1].split()[1] in state.legal_move_strs()

    # go infinite keeps reading input; bestmove only after stop.
    engine.send("go infinite")
    engine.send("isready")
    assert engine.until("readyok")[-1] == "readyok"
    assert engine.ask("query p1turn") == "response false"
    engine.send("position startpos")
    assert "infinite search" in engine.until("info string error")[-1]
    engine.send("stop")
    assert engine.until("bestmove")[-1].split()[1] in state.legal_move_strs()

    # A finished game: query and mate reporting.
    engine.send("position startpos moves c3 b2")
    engine.send("go depth 5")
    lines = engine.until("bestmove")
    assert lines[-1] == "bestmove a1"
    assert any("score mate 1" in line for line in lines)
    engine.send("position startpos moves c3 b2 a1")
    assert engine.ask("query gameover") == "response true"
    assert engine.ask("query result") == "response p1win"
    engine.send("go depth 2")
    assert engine.until("bestmove")[-1] == "bestmove none"


def test_options_switch_the_game():
    process = Engine("--game", "slimetrail", "--size", "5")
    try:
        process.send("ugi")
        sizes = " ".join(f"var {n}" for n in range(5, 16, 2))
        assert f"option name Size type combo default 5 {sizes}" in process.until("ugiok")
        process.send("setoption name Game value slimetrail-hex")
        process.send("setoption name Size value 6")
        process.send("position startpos moves e")
        process.send("go perft 1")
        lines = process.until("Nodes searched:")
        state = get_game("slimetrail-hex", size=6).new_state()
        state.push_str("e")
        assert lines[-1] == f"Nodes searched: {len(state.legal_moves())}"
        process.send("setoption name Rules value taylor")
        process.send("isready")
        assert process.until("readyok")[-1] == "readyok"
    finally:
        assert process.close() == 0


def test_time_control_and_end_of_input():
    proc = subprocess.run(
        [sys.executable, "-m", "slimetrail", "ugi"],
        input="position startpos\ngo p1time 2000 p2time 2000 p1inc 10 p2inc 10\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stdout.strip().splitlines()[-1].startswith("bestmove ")


def test_time_budget_spreads_the_clock():
    assert _time_budget(1, {}) == 1.0
    assert _time_budget(1, {"p1time": 20_000, "p2time": 1}) == pytest.approx(1.0)
    assert _time_budget(2, {"p1time": 20_000, "p2time": 2_000, "p2inc": 100}) < 0.2
    assert _time_budget(2, {"p2time": 100}) <= 0.05


def test_engine_class_with_output_callback():
    out: list[str] = []
    engine = UgiEngine(out.append, get_game("slimetrail", size=5))
    assert engine.handle("position startpos moves b2") is True
    engine.handle("query p1turn")
    assert out[-1] == "response false"
    engine.handle("position fen 5/5/2o2/5/5 3")
    assert out[-1].startswith("info string error position")
    engine.handle("query p1turn")
    assert out[-1] == "response false"  # unchanged by the bad fen
    engine.handle("setoption name Level value 1")
    engine.handle("setoption name Seed value 3")
    engine.handle("go")
    engine.wait()
    assert out[-1].split()[1] in ("a2", "a3", "b1", "b3", "c1", "c2", "c3")  # never a1
    assert engine.handle("quit") is False


def test_solved_positions_are_reported_as_mate():
    game = get_game("slimetrail", size=5)
    out: list[str] = []
    engine = UgiEngine(out.append, game)
    engine.handle("isready")
    engine.handle("position startpos moves b4")
    engine.handle("go p1time 20000 p2time 20000")
    engine.wait()
    state = game.new_state()
    state.push_str("b4")
    proof = solver.solve(state, distance=True)
    plies = proof.plies
    # Moves of the side to move, the loser's own last step included.
    mate = (plies + 1) // 2 if proof.value == "win" else -((plies + 1) // 2)
    assert any(f"score mate {mate} " in line for line in out), out
    assert out[-1].split()[1] in state.legal_move_strs()


# A position no game reaches (nothing slimed, the second player to move): in no book, and
# the solver needs seconds for it.
UNBOOKED = "7/7/7/7/7/7/4o2 2"


def test_stop_ends_the_solvers_proof_with_a_legal_move():
    out: list[str] = []
    engine = UgiEngine(out.append)
    engine.handle("isready")  # loads the solver's kernel
    engine.handle(f"position fen {UNBOOKED}")
    engine.handle("go movetime 60000")  # the top level: the solver gets most of a minute
    time.sleep(0.5)
    assert engine.searching
    began = time.monotonic()
    engine.handle("stop")
    assert time.monotonic() - began < 1.0  # generous: the kernel sees stop within ms
    assert not engine.searching
    state = get_game("slimetrail").state_from_fen(UNBOOKED)
    assert out[-1].split()[0] == "bestmove"
    assert out[-1].split()[1] in state.legal_move_strs()


def test_go_movetime_plays_at_the_level():
    out: list[str] = []
    engine = UgiEngine(out.append)
    engine.handle("setoption name Level value 2")
    engine.handle("go movetime 300")
    engine.wait()
    assert "info string level 2" in out
    assert out[-1].split()[1] in engine.state.legal_move_strs()
    # The top level asks its books first: a proven win, no analysis search lines.
    out.clear()
    engine.handle("setoption name Level value 6")
    engine.handle("go movetime 300")
    engine.wait()
    assert not any(line.startswith("info string level") for line in out)
    assert any("score mate" in line or "proven win" in line for line in out), out


def test_movetime_reports_a_proof_as_mate_in_moves():
    game = get_game("slimetrail", size=5)
    state = game.new_state()
    for text in ("c2", "d3", "c4"):
        state.push_str(text)
    out: list[str] = []
    engine = UgiEngine(out.append, game)
    engine.handle("position startpos moves c2 d3 c4")
    engine.handle("go movetime 5000")
    engine.wait()
    proof = solver.solve(state, distance=True, book=False)
    # UCI's mate N counts the moves of the side to move, negative when it loses.
    moves = (proof.plies + 1) // 2 if proof.value == "win" else -(proof.plies // 2)
    assert any(f"score mate {moves} " in line for line in out), out
    best = out[-1].split()[1]
    assert proof.move_values[state.parse_move(best)] == proof.value


def test_go_without_isready_loads_the_kernels_before_the_search(monkeypatch):
    """A controller that never sends ``isready`` still gets a searched move: the game's
    kernels load before the search's clock starts, once per game."""
    from slimetrail.games.slither.game import SlitherGame
    from slimetrail.games.trail.game import TrailGame

    warmed: list[str] = []
    out: list[str] = []

    def recorder(name):
        return classmethod(lambda cls: warmed.append(name) or out.append(f"warm {name}"))

    monkeypatch.setattr(SlitherGame, "warm_up", recorder("slither"))
    monkeypatch.setattr(TrailGame, "warm_up", recorder("trail"))
    engine = UgiEngine(out.append, get_game("slither", size=5))
    for _ in range(2):
        engine.handle("go movetime 50")
        engine.wait()
    assert warmed == ["slither"]
    assert out.index("warm slither") < min(
        i for i, ln in enumerate(out) if ln.startswith("bestmove")
    )
    engine.handle("setoption name Game value slimetrail")
    engine.handle("isready")
    engine.handle("go movetime 50")
    engine.wait()
    assert warmed == ["slither", "trail"]
    assert out[-1].startswith("bestmove ")


def test_the_timed_top_level_is_the_ladders_own_player(monkeypatch):
    """``go movetime`` at the top level plays the ladder's top level (Slime-Moku's MCTS, as
    on the site and in the benchmarks), not the analysis search, with the Threads option."""
    import slimetrail.engine.ugi as ugi
    from slimetrail.ai import play

    calls = []

    def spy(state, level, limit, *, seed=None):
        result = play(state, level, limit, seed=seed)
        calls.append((level, limit, result))
        return result

    monkeypatch.setattr(ugi, "play", spy)
    game = get_game("slime-moku", size=9, k=5)
    out: list[str] = []
    engine = UgiEngine(out.append, game)
    engine.handle("isready")
    engine.handle("setoption name Threads value 2")
    engine.handle("position startpos moves d5 d6")
    engine.handle("go movetime 400")
    engine.wait()
    [(level, limit, result)] = calls
    assert level == engine.top_level and limit.threads == 2 and 0 < limit.time <= 0.4
    assert result.info["search"] == "MCTS-Solver" and result.nodes > 100
    [info] = [line for line in out if line.startswith("info ")]  # one line: the answer's
    best = out[-1].split()[1]
    assert f" score cp {result.score} nodes {result.nodes} " in info and info.endswith(f"pv {best}")
    assert out[-1] == f"bestmove {engine.state.copy().move_str(result.move)}"


def test_the_threads_option_is_offered_and_checked():
    out: list[str] = []
    engine = UgiEngine(out.append)
    engine.handle("ugi")
    assert any(
        line.startswith("option name Threads type spin default 1 min 1 max ") for line in out
    )
    for bad in ("0", "100000", "two"):
        out.clear()
        engine.handle(f"setoption name Threads value {bad}")
        assert out[-1].startswith("info string error") and "Threads" in out[-1], bad
        assert engine.threads == 1
    engine.handle("setoption name Threads value 1")
    assert engine.threads == 1
