"""UGI for every two-player game: options from declarations, swap and pass, refusals."""

from __future__ import annotations

from clitools import run_cli

from slimetrail.core.registry import GAMES, get_game
from slimetrail.engine.ugi import UgiEngine


def engine_for(game_id: str, **options) -> tuple[UgiEngine, list[str]]:
    out: list[str] = []
    return UgiEngine(out.append, get_game(game_id, **options)), out


def test_a_game_for_three_is_refused_at_start():
    proc = run_cli("ugi", "--game", "toy-three", stdin="ugi\nquit\n")
    assert proc.returncode == 2
    assert "UGI speaks two-player games; toy-three has 3 players" in proc.stderr
    assert proc.stdout == ""


def test_a_game_for_three_is_refused_by_setoption_and_not_offered():
    engine, out = engine_for("toy-pie")
    engine.handle("ugi")
    [games] = [line for line in out if line.startswith("option name Game ")]
    offered = set(games.split(" var ")[1:])
    assert offered == {g for g, cls in GAMES.items() if cls.num_players == 2}
    assert "toy-three" not in offered and "toy-pie" in offered
    engine.handle("setoption name Game value toy-three")
    assert out[-1] == "info string error UGI speaks two-player games; toy-three has 3 players"
    assert engine.game.id == "toy-pie"


def test_options_come_from_the_declarations():
    engine, out = engine_for("slimetrail-hex", size=6)
    engine.handle("ugi")
    options = [line for line in out if line.startswith("option name ")]
    sizes = " ".join(f"var {n}" for n in range(4, 16))
    assert f"option name Size type combo default 6 {sizes}" in options
    assert "option name Rules type combo default taylor var rastros var taylor" in options
    assert "option name Start type string default centre" in options
    assert "option name Level type spin default 6 min 1 max 6" in options
    engine.handle("setoption name Rules value rastros")
    assert engine.game.options["rules"] == "rastros" and engine.game.options["size"] == 6
    engine.handle("setoption name K value 5")
    known = "Level, Game, Seed, Threads, Size, Rules, Start"
    assert out[-1] == f"info string error setoption: unknown option 'k' (options: {known})"
    # A game without options offers none of the Slime Trail ones.
    engine, out = engine_for("toy-pie")
    engine.handle("ugi")
    assert not any(line.startswith(("option name Size", "option name Rules")) for line in out)
    engine.handle("setoption name Size value 7")
    assert out[-1].startswith("info string error setoption: unknown option 'size'")


def test_swap_and_pass_are_ordinary_moves():
    engine, out = engine_for("toy-pie")
    engine.handle("position startpos moves a1 swap")
    engine.handle("query p1turn")
    assert out[-1] == "response true"  # after the swap the first player moves, as White
    engine.handle("go nodes 300")
    engine.wait()
    state = get_game("toy-pie").new_state()
    state.push_str("a1")
    state.push_str("swap")
    assert out[-1].startswith("bestmove ")
    assert out[-1].split()[1] in state.legal_move_strs()
    assert any(line.startswith("info depth ") and " score cp " in line for line in out)
    engine.handle("position fen 1122221111222211 1 - moves pass")
    engine.handle("go nodes 10")
    engine.wait()
    assert out[-1] == "bestmove pass"
    engine.handle("position fen 1122221111222211 1 - moves pass pass")
    engine.handle("query result")
    assert out[-1] == "response draw"


def test_levels_are_the_games_own():
    engine, out = engine_for("toy-pie")
    engine.handle("setoption name Level value 2")
    engine.handle("setoption name Seed value 4")
    engine.handle("position startpos moves b2")
    engine.handle("go")
    engine.wait()
    state = get_game("toy-pie").new_state()
    state.push_str("b2")
    assert out[-1].split()[1] in state.legal_move_strs()
    engine.handle("setoption name Level value 7")
    assert out[-1] == "info string error Level '7' is not one of 1..6"
    # MCTS analyses by time or nodes; a depth alone is answered with an error and a move.
    engine.handle("go depth 3")
    engine.wait()
    assert any("error search failed" in line and "MCTS" in line for line in out)
    assert out[-1].split()[1] in state.legal_move_strs()
