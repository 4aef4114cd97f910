"""Perft checked against the independent brute-force model of the rules in ``trail_model.py``
(plain coordinates and sets, no bitboards, no import of slimetrail's rules).
"""

from __future__ import annotations

import random

import pytest
from trail_model import Cell, Model, model_fen

from slimetrail.cli.main import main
from slimetrail.core.perft import divide, perft, perft_generic
from slimetrail.core.registry import get_game

CONFIGS = [
    ("slimetrail", 7, "rastros", None),
    ("slimetrail", 7, "taylor", None),
    ("slimetrail", 7, "rastros", "e5"),
    ("slimetrail", 5, "rastros", None),
    ("slimetrail-hex", 10, "taylor", None),
    ("slimetrail-hex", 10, "rastros", None),
    ("slimetrail-hex", 8, "taylor", None),
    ("slimetrail-hex", 4, "taylor", None),
    ("slimetrail-hex", 5, "rastros", None),
    ("slimetrail-square", 8, "taylor", None),
    ("slimetrail-square", 8, "rastros", None),
    ("slimetrail-square", 5, "taylor", None),
]

# Published tables for the three default games (regression anchors for every perft user);
# the test also recomputes each entry with the model.
TABLES = {
    ("slimetrail", 7, "rastros", None): [1, 8, 56, 368, 2012, 9832, 44252],
    ("slimetrail-hex", 10, "taylor", None): [1, 6, 30, 138, 618, 2665, 10848],
    ("slimetrail-square", 8, "taylor", None): [1, 8, 56, 368, 2173, 11688, 58430],
}


def engine_game(game_id: str, n: int, rules: str, start: str | None):
    return get_game(game_id, size=n, rules=rules, start=start)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_start_position_perft_matches_model(config):
    game_id, n, rules, start = config
    model = Model(game_id, n, rules, start)
    state = engine_game(*config).new_state()
    assert state.move_str(state.snail) == model.name(model.start)
    # Small boards are short enough to count well past depth 6.
    depths = range(0, 10 if n <= 5 else 7)
    got = [perft(state, d) for d in depths]
    want = [model.perft(frozenset(), model.start, d) for d in depths]
    assert got == want
    if config in TABLES:
        assert got == TABLES[config]


def test_taylor_restriction_shows_in_the_counts():
    # On hex 10x10 a six-move loop can enclose a cell: Taylor forbids entering it.
    rastros = engine_game("slimetrail-hex", 10, "rastros", None).new_state()
    taylor = engine_game("slimetrail-hex", 10, "taylor", None).new_state()
    assert perft(rastros, 5) == perft(taylor, 5)
    assert perft(rastros, 6) > perft(taylor, 6)


def test_whole_game_trees_on_the_smallest_boards():
    # Beyond the longest possible game every count is 0; before it, model and engine agree.
    for config in [("slimetrail-hex", 4, "taylor", None), ("slimetrail-hex", 4, "rastros", None)]:
        model = Model(*config)
        state = engine_game(*config).new_state()
        for depth in range(16):
            assert perft(state, depth) == model.perft(frozenset(), model.start, depth), depth
        assert perft(state, 15) == 0  # 16 cells: at most 15 moves


def random_line(config, seed: int, leave: int) -> list[str]:
    """Cell names of a random game, stopped ``leave`` plies before it ended."""
    rng = random.Random(seed)
    state = engine_game(*config).new_state()
    while state.outcome() is None:
        state.push(rng.choice(state.legal_moves()))
    return [state.move_str(m) for m in state.move_stack[: max(0, len(state.move_stack) - leave)]]


def small_region(model: Model, rng: random.Random) -> tuple[set[Cell], Cell]:
    """A late position: a few free cells grown from a goal corner, the snail beside them."""
    free = {rng.choice(sorted(model.goals))}
    for _ in range(rng.randrange(3, 11)):
        free.add(rng.choice(model.neighbours(rng.choice(sorted(free)))))
    free |= model.goals
    edge = {c for f in free for c in model.neighbours(f)} - free
    snail = rng.choice(sorted(edge))
    every = {(c, r) for c in range(model.n) for r in range(model.n)}
    return every - free - {snail}, snail


ENDGAME_CONFIGS = [
    ("slimetrail", 7, "rastros", None),
    ("slimetrail", 7, "taylor", None),
    ("slimetrail-hex", 10, "taylor", None),
    ("slimetrail-hex", 10, "rastros", None),
    ("slimetrail-square", 8, "taylor", None),
    ("slimetrail-square", 8, "rastros", None),
]


@pytest.mark.parametrize("config", ENDGAME_CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_late_positions_count_whole_game_trees(config):
    model = Model(*config)
    game = engine_game(*config)
    rng = random.Random(config[1] * 31 + len(config[0]))
    for _ in range(12):
        blocked, snail = small_region(model, rng)
        state = game.state_from_fen(model_fen(model, blocked, snail, rng.choice((1, 2))))
        depths = range(model.n * model.n - len(blocked) + 1)
        counts = [perft(state, d) for d in depths]
        assert counts == [model.perft(frozenset(blocked), snail, d) for d in depths], state
        assert counts == [perft_generic(state, d) for d in depths], state
        assert counts[-1] == 0  # more plies than free cells: every game has ended


@pytest.mark.parametrize("config", ENDGAME_CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_positions_a_few_plies_before_a_random_game_ended(config):
    model = Model(*config)
    for seed in range(4):
        line = random_line(config, seed, leave=4)
        state = engine_game(*config).new_state()
        for text in line:
            state.push_str(text)
        blocked, snail = model.play(line)
        counts = [perft(state, d) for d in range(7)]
        assert counts == [model.perft(blocked, snail, d) for d in range(7)], line
        assert counts[:5] == [perft_generic(state, d) for d in range(5)], line


def test_game_over_counts_nothing():
    game = engine_game("slimetrail", 5, "rastros", None)
    state = game.new_state()
    state.push_str("b2")
    assert divide(state, 1) == dict.fromkeys(["a1", "b1", "c1", "a2", "c2", "a3", "b3"], 1)
    # a1 ends the game at once, so it adds nothing at depth 2.
    counts = divide(state, 2)
    assert counts["a1"] == 0
    assert sum(counts.values()) == perft(state, 2)
    state.push_str("a1")
    assert state.outcome() is not None
    assert [perft(state, d) for d in range(4)] == [1, 0, 0, 0]
    assert divide(state, 3) == {}


def test_stuck_positions_count_nothing():
    # Rastros, snail boxed in at c3 of 5x5 with player 1 to move: stuck, game over.
    game = engine_game("slimetrail", 5, "rastros", None)
    state = game.state_from_fen("5/1xxx1/1xox1/1xxx1/5 1")
    assert state.outcome() is not None
    assert [perft(state, d) for d in range(3)] == [1, 0, 0]
    assert perft_generic(state, 2) == 0


def test_perft_and_divide_leave_the_state_alone_and_agree():
    state = engine_game("slimetrail-square", 8, "taylor", None).new_state()
    for text in ["d4", "c3", "b3"]:
        state.push_str(text)
    fen, key, stack = state.fen(), state.key(), list(state.move_stack)
    counts = divide(state, 4)
    assert sorted(counts) == sorted(state.legal_move_strs())
    assert sum(counts.values()) == perft(state, 4) == perft_generic(state, 4)
    assert (state.fen(), state.key(), state.move_stack) == (fen, key, stack)


def test_fast_path_matches_generic_walk_on_random_positions():
    rng = random.Random(7)
    for config in CONFIGS:
        state = engine_game(*config).new_state()
        for _ in range(rng.randrange(0, 8)):
            if state.outcome() is not None:
                break
            state.push(rng.choice(state.legal_moves()))
        for depth in range(5):
            assert perft(state, depth) == perft_generic(state, depth), (config, state.fen())


@pytest.mark.parametrize("depth", [-1, 1.5, "3", True])
def test_bad_depth_is_rejected(depth):
    state = engine_game("slimetrail", 7, "rastros", None).new_state()
    with pytest.raises(ValueError, match="depth"):
        perft(state, depth)
    with pytest.raises(ValueError, match="depth"):
        divide(state, depth)


def test_cli_prints_divide_and_total(capsys):
    assert main(["perft", "--game", "slimetrail-hex", "--size", "8", "--depth", "2", "e"]) == 0
    out = capsys.readouterr().out.splitlines()
    state = engine_game("slimetrail-hex", 8, "taylor", None).new_state()
    state.push_str("e")
    want = divide(state, 2)
    assert out[:-2] == [f"{text}: {count}" for text, count in want.items()]
    assert out[-2:] == ["", f"Nodes searched: {sum(want.values())}"]


def test_cli_from_fen_and_errors(capsys):
    fen = "5/1xxx1/1xo2/1xxx1/5 2"
    assert main(["perft", "--size", "5", "--fen", fen, "--depth", "1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["d3: 1", "", "Nodes searched: 1"]
    assert main(["perft", "--depth", "2", "c3", "zz"]) == 2
    err = capsys.readouterr().err
    assert "move 2 (zz)" in err
    assert main(["perft", "--depth", "-1"]) == 2
    assert "--depth" in capsys.readouterr().err
