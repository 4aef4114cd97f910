"""The shipped puzzle sets: every solution starts with its position's only winning move (a
seeded sample, and the first puzzle of each set, re-proven by the independent reference
solver), every move of the main line wins, no two puzzles are the same position up to the
board's symmetries; the build command on a tiny count."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from slimetrail import puzzles
from slimetrail.cli.main import main as cli
from slimetrail.core.registry import get_game
from slimetrail.games.slither.board import BLACK
from slimetrail.games.slither.game import SlitherState
from slimetrail.games.slither.solver import REFERENCE as SLITHER_REFERENCE
from slimetrail.games.slither.solver import SOLVER as SLITHER_SOLVER
from slimetrail.games.trail.solver import solve
from slimetrail.games.trail.solver.reference import reference_solve
from slimetrail.puzzles import build
from slimetrail.puzzles.build import read
from slimetrail.puzzles.symmetry import position_key, symmetries

TRAIL_GAMES = [g for g in puzzles.games() if g.startswith("slimetrail")]
SLITHER_GAMES = [g for g in puzzles.games() if g.startswith("slither")]
OTHER_GAMES = [g for g in puzzles.games() if g not in TRAIL_GAMES + SLITHER_GAMES]
SAMPLE = 12  # puzzles a set, besides its first
REFERENCE_SAMPLE = 6
LATE = 26  # plies played before the reference solver's 7x7 puzzles
# On the 8x8 boards (64 cells) the reference solver answers in under a second from here on
# (at most 38 cells left), takes seconds at ply 22 and minutes from ply 20 or so: the
# earlier puzzles there are re-proven by the C solver only (below).
LATE_8X8 = 26
# Slither 4x4: the game-interface negamax answers in a second or so from here on (minutes
# from ply 5); the 5x5 puzzles are re-proven by Slither's own plain search (its reference).
LATE_SLITHER_4X4 = 9


def sample(game: str) -> list[dict]:
    # the puzzles to win (the draw-saving ones have their own test)
    shipped = sorted(
        (p for p in puzzles.puzzles(game) if p.get("goal", "win") == "win"), key=lambda p: p["id"]
    )
    rng = random.Random(26)
    return [shipped[0], *rng.sample(shipped, min(SAMPLE, len(shipped)))]


def test_puzzle_sets_are_shipped() -> None:
    assert "slimetrail" in puzzles.games()
    shipped = puzzles.puzzles("slimetrail")
    # the counts
    assert len(shipped) >= 2000
    assert len(puzzles.puzzles("slimetrail-hex")) >= 500
    assert len(puzzles.puzzles("slimetrail-square")) >= 500
    assert {p["options"].get("rules", "rastros") for p in shipped} == {"rastros", "taylor"}
    for game in ("slither", "slither-advanced"):
        sizes = [p["options"]["size"] for p in puzzles.puzzles(game)]
        assert sizes.count("4") >= 75 and sizes.count("5") >= 25, game
    assert len({p["options"].get("start") for p in shipped}) >= 3


def plain_search(state):
    """The compiled solver without its shortcuts (goal pruning, the matching theorem) and
    without the book: where the reference solver takes minutes (8x8 boards, and 7x7
    positions early in the game)."""
    return solve(state, shortcuts=needs_shortcuts(state), book=False)


def needs_shortcuts(state) -> bool:
    """Plain search on 7x7; on the 8x8 boards it takes minutes, so there the shortcuts stay
    on (the same solver as the builder's, without the book: a weaker check)."""
    return state.game.size != 7


def check_solution(puzzle: dict, prove) -> None:
    state = puzzles.position(puzzle)
    proof = prove(state)
    assert [state.move_str(m) for m in proof.winning_moves] == [puzzle["line"][0]], puzzle
    for wrong in puzzle["tree"]["refute"]:
        assert proof.move_values[state.parse_move(wrong)] != "win", (puzzle["id"], wrong)
    # Along the main line every move of the solver's side wins; the line ends in a win.
    mover = state.to_move
    for index, text in enumerate(puzzle["line"]):
        if index % 2 == 0:
            assert state.parse_move(text) in prove(state).winning_moves, (puzzle["id"], index)
        state.push(state.parse_move(text))
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == mover, puzzle["id"]


def test_sampled_7x7_solutions_are_reproven_by_the_reference_solver() -> None:
    """The reference solver (plain negamax over the game's rules, no regions or pruning)
    on a seeded sample of the 7x7 puzzles from ``LATE`` plies on, where it answers in
    seconds."""
    late = [p for p in puzzles.puzzles("slimetrail") if len(p["moves"]) >= LATE]
    for puzzle in random.Random(26).sample(late, min(REFERENCE_SAMPLE, len(late))):
        check_solution(puzzle, reference_solve)


@pytest.mark.parametrize("game", [g for g in TRAIL_GAMES if g != "slimetrail"])
def test_sampled_late_8x8_solutions_are_reproven_by_the_reference_solver(game: str) -> None:
    late = [p for p in puzzles.puzzles(game) if len(p["moves"]) >= LATE_8X8]
    for puzzle in random.Random(26).sample(late, min(REFERENCE_SAMPLE, len(late))):
        check_solution(puzzle, reference_solve)


@pytest.mark.parametrize("game", OTHER_GAMES)
def test_other_games_solutions_are_reproven_by_the_reference_solver(game: str) -> None:
    """The reference solver's negamax uses only the game interface: it re-proves the small
    boards' puzzles (Slime-Moku 5x5) independently of their games' solvers."""
    small = [p for p in sample(game) if p["options"].get("size") == "5"]
    assert small
    for puzzle in small:
        check_solution(puzzle, reference_solve)


@pytest.mark.parametrize("game", SLITHER_GAMES)
def test_sampled_slither_solutions_are_reproven_by_the_reference_solvers(game: str) -> None:
    """4x4 puzzles by the game-interface negamax (none of Slither's kernel), 5x5 ones by the
    Slither solver's plain search (without its symmetry table and threat cut); the whole
    seeded sample, early 4x4 ones too, by the builder's solver."""
    shipped = puzzles.puzzles(game)
    late = [
        p for p in shipped if p["options"]["size"] == "4" and len(p["moves"]) >= LATE_SLITHER_4X4
    ]
    five = [p for p in shipped if p["options"]["size"] == "5"]
    rng = random.Random(26)
    for puzzle in rng.sample(late, min(4, len(late))):
        check_solution(puzzle, reference_solve)
    for puzzle in rng.sample(five, min(3, len(five))):
        check_solution(puzzle, SLITHER_REFERENCE.solve)
    for puzzle in sample(game):
        check_solution(puzzle, SLITHER_SOLVER.solve)


def draw_savers(game: str) -> list[dict]:
    return [p for p in puzzles.puzzles(game) if p.get("goal") == "draw"]


def check_draw_saver(puzzle: dict) -> None:
    """The reference solver: the position is a draw, the puzzle's first move the only one
    that holds it (every other loses), and along the main line every move of the player's
    holds it to the end, a draw."""
    state = puzzles.position(puzzle)
    proof = reference_solve(state)
    assert proof.value == "draw" and not proof.winning_moves, puzzle["id"]
    assert [state.move_str(m) for m in proof.drawing_moves] == [puzzle["line"][0]], puzzle["id"]
    assert sorted(puzzle["tree"]["refute"]) == sorted(
        state.move_str(m) for m, v in proof.move_values.items() if v == "loss"
    )
    mover = state.to_move
    for index, text in enumerate(puzzle["line"]):
        if index % 2 == 0:
            assert state.parse_move(text) in reference_solve(state).drawing_moves
        state.push(state.parse_move(text))
    outcome = state.outcome()
    assert outcome is not None and outcome.for_player(mover) == "draw", puzzle["id"]


def test_sampled_draw_saving_puzzles_are_reproven_by_the_reference_solver() -> None:
    shipped = draw_savers("slime-moku")
    assert len(shipped) >= 100
    # a draw is proven to the full board: the reference negamax answers in a second or less
    # from 14 empty cells (from ply 11 on 5x5, 22 on 6x6), minutes from 20
    five = [p for p in shipped if p["options"]["size"] == "5" and len(p["moves"]) >= 11]
    six = [p for p in shipped if p["options"]["size"] == "6" and len(p["moves"]) >= 24]
    rng = random.Random(26)
    for puzzle in rng.sample(five, min(4, len(five))) + rng.sample(six, min(3, len(six))):
        check_draw_saver(puzzle)


def test_the_build_command_makes_draw_saving_puzzles(tmp_path: Path) -> None:
    out = tmp_path / "draws.jsonl.gz"
    args = ["puzzles", "build", "--game", "slime-moku", "--board", "size=5,k=4"]
    assert cli([*args, "--goal", "draw", "--count", "1", "--seed", "3", "--out", str(out)]) == 0
    [puzzle] = read(out)
    assert puzzle["goal"] == "draw"
    check_draw_saver(puzzle)
    assert puzzles.public(puzzle)["goal"] == "draw"


def transposed(state: SlitherState, exchange: bool) -> SlitherState:
    """The position in the a1-d4 diagonal's mirror, with the colours exchanged or not."""
    board = state.board

    def image(stones: int) -> int:
        bits = 0
        for name in (c["name"] for c in state.game.describe_board()["cells"]):
            if stones >> board.parse_cell(name) & 1:
                bits |= 1 << board.parse_cell(
                    f"{chr(ord('a') + int(name[1:]) - 1)}{ord(name[0]) - 96}"
                )
        return bits

    black, white = image(state.stones[0]), image(state.stones[1])
    if exchange:
        black, white = white, black
    colour = state.colour ^ exchange
    return SlitherState(state.game, black, white, colour, state.swapped, state.turns)


def test_slither_symmetries_keep_each_side_its_goal() -> None:
    """Black connects bottom and top: the mirrors and the half turn keep that, the diagonal
    mirrors and quarter turns only with the colours exchanged (the mover's goal turns with
    the board).  The solver agrees: the exchanged image is won by one move too."""
    puzzle = min(
        (p for p in puzzles.puzzles("slither") if p["options"]["size"] == "4"),
        key=lambda p: p["id"],
    )
    state = puzzles.position(puzzle)
    symmetric = symmetries(state.game)
    assert len(symmetric) == 8 and sum(s.turns_axes for s in symmetric) == 4
    same, other = transposed(state, exchange=True), transposed(state, exchange=False)
    assert position_key(same) == position_key(state) != position_key(other)
    proof, image = SLITHER_SOLVER.solve(state), SLITHER_SOLVER.solve(same)
    assert proof.value == image.value == "win" and len(image.winning_moves) == 1
    assert (state.colour == BLACK) != (same.colour == BLACK)  # the other colour moves


@pytest.mark.parametrize("game", TRAIL_GAMES)
def test_every_sampled_solution_is_the_only_win_and_wins_to_the_end(game: str) -> None:
    for puzzle in sample(game):
        check_solution(puzzle, plain_search)


@pytest.mark.soak
@pytest.mark.parametrize("game", TRAIL_GAMES)
def test_every_shipped_solution_is_the_only_win_and_wins_to_the_end(game: str) -> None:
    """The whole set, not a sample (minutes: ``-m soak``).  Sets built with ``--workers``
    before the solver's tables were private to a process (session 28) are re-proven here."""
    for puzzle in puzzles.puzzles(game):
        check_solution(puzzle, plain_search)


@pytest.mark.parametrize("game", puzzles.games())
def test_no_two_puzzles_are_one_position_up_to_symmetry(game: str) -> None:
    keys = [position_key(puzzles.position(p)) for p in puzzles.puzzles(game)]
    assert len(set(keys)) == len(keys)
    assert len({p["id"] for p in puzzles.puzzles(game)}) == len(keys)


def play(game_id: str, moves: list[str], **options: str):
    state = get_game(game_id, **options).new_state()
    for text in moves:
        state.push(state.parse_move(text))
    return state


def test_the_key_is_the_same_for_mirror_images_and_differs_otherwise() -> None:
    # 7x7: the a1-g7 diagonal keeps both goals; its mirror image is the same position.
    line = ["c3", "b3", "b4", "c5"]
    mirror = ["c3", "c2", "d2", "e3"]
    assert position_key(play("slimetrail", line)) == position_key(play("slimetrail", mirror))
    # The other diagonal swaps the goals: the same snail path is another position.
    other = ["e5", "f5", "f4", "e3"]
    assert position_key(play("slimetrail", line)) != position_key(play("slimetrail", other))
    # Colours swapped with the board: a1-g7's anti-diagonal flip maps player 1's position
    # to player 2's (here: from a start on that diagonal, after an odd and an even ply).
    assert len(symmetries(get_game("slimetrail"))) == 8
    assert len(symmetries(get_game("slimetrail-hex", size="8"))) == 4
    # The rules are part of the key.
    assert position_key(play("slimetrail", line)) != position_key(
        play("slimetrail", line, rules="taylor")
    )


def test_the_mirror_image_of_a_shipped_puzzle_is_a_duplicate() -> None:
    # a start on the a1-g7 diagonal: the mirror image is a game from the same start
    on_diagonal = (None, "d4", "c3")
    puzzle = next(
        p for p in puzzles.puzzles("slimetrail") if p["options"].get("start") in on_diagonal
    )
    state = puzzles.position(puzzle)
    flip = {
        f"{f}{r}": f"{chr(ord('a') + r - 1)}{ord(f) - ord('a') + 1}"
        for f in "abcdefg"
        for r in range(1, 8)
    }
    image = play("slimetrail", [flip[m] for m in puzzle["moves"]], **puzzle["options"])
    assert position_key(image) == position_key(state)


def test_the_build_command_adds_new_puzzles_with_one_winning_move(tmp_path: Path) -> None:
    out = tmp_path / "set.jsonl.gz"
    args = [
        "puzzles",
        "build",
        "--game",
        "slimetrail",
        "--count",
        "1",
        "--out",
        str(out),
        "--board",
        "rules=taylor,start=c3",
    ]
    assert cli(args) == 0
    assert cli([*args, "--seed", "2"]) == 0  # a rerun extends the set
    made = read(out)
    assert len(made) == 2
    assert len({position_key(puzzles.position(p)) for p in made}) == 2
    for puzzle in made:
        assert puzzle["options"] == {"rules": "taylor", "start": "c3"}
        state = puzzles.position(puzzle)
        proof = solve(state, book=False)
        assert [state.move_str(m) for m in proof.winning_moves] == [puzzle["line"][0]]
        assert puzzles.answer(puzzle, puzzle["line"][:1]).correct


def test_the_build_command_names_bad_input(tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "x.jsonl.gz")
    assert cli(["puzzles", "build", "--game", "chess", "--out", out]) == 2
    assert "no puzzle set for game 'chess'" in capsys.readouterr().err
    assert cli(["puzzles", "build", "--board", "rules", "--out", out]) == 2
    assert "expected NAME=VALUE" in capsys.readouterr().err
    assert cli(["puzzles", "build", "--board", "size=4", "--out", out]) == 2
    assert not Path(out).exists()


def turns(tree: dict | None) -> int:
    """The solver's turns of a solution tree."""
    if tree is None:
        return 0
    return 1 + sum(turns(sub) for _, sub in tree["win"].values())


def test_a_tree_is_rebuilt_exactly_within_its_size_and_dropped_early_past_it(
    monkeypatch,
) -> None:
    """The budget books the turns known to come: a tree of exactly ``MAX_NODES`` turns is
    still made (the same as shipped), one turn fewer allowed drops it before its last
    branch is solved."""
    puzzle = min(
        (p for p in puzzles.puzzles("slimetrail") if p["branches"] and len(p["moves"]) >= LATE),
        key=lambda p: (turns(p["tree"]), p["id"]),
    )
    size = turns(puzzle["tree"])
    prover = build.Prover.for_game(puzzles.position(puzzle).game)
    solves: list[int] = []
    original = prover.solve
    monkeypatch.setattr(prover, "solve", lambda *a, **k: solves.append(1) or original(*a, **k))
    monkeypatch.setattr(build, "MAX_NODES", size)
    budget = build.Budget(None)
    budget.book()
    assert build.solution(prover, puzzles.position(puzzle), budget) == puzzle["tree"]
    whole = len(solves)
    solves.clear()
    monkeypatch.setattr(build, "MAX_NODES", size - 1)
    budget = build.Budget(None)
    budget.book()
    with pytest.raises(build.TooBig):
        build.solution(prover, puzzles.position(puzzle), budget)
    # booked at the turn that has several winning moves, before any of them is followed
    assert len(solves) < whole - 1


def test_a_slow_proof_is_dropped_not_shipped(monkeypatch) -> None:
    puzzle = next(p for p in puzzles.puzzles("slimetrail") if len(p["moves"]) >= LATE)
    state = puzzles.position(puzzle)
    prover = build.Prover.for_game(state.game)
    assert build.make_puzzle(prover, state, puzzle["moves"], 1) is not None
    monkeypatch.setattr(build, "TREE_TIME", 0.0)
    assert build.make_puzzle(prover, state, puzzle["moves"], 1) is None


def test_positions_won_by_one_move_into_the_goal_are_not_solved_further() -> None:
    def last_turn(puzzle: dict):
        """The main line's last turn: the position and its solve."""
        state = puzzles.position(puzzle, puzzle["line"][:-1])
        return state, solve(state, book=False)

    def won_by_the_one_last_move(puzzle: dict) -> bool:
        result = last_turn(puzzle)[1]
        return len(result.winning_moves) == 1 and len(result.move_values) > 1

    late = (p for p in puzzles.puzzles("slimetrail") if len(p["moves"]) >= LATE)
    puzzle = next(p for p in late if won_by_the_one_last_move(p))
    state = puzzles.position(puzzle)
    assert build.worth_solving(state, solve(state, book=False))
    assert not build.worth_solving(*last_turn(puzzle))


def test_the_build_command_runs_workers_and_names_a_bad_count(tmp_path: Path, capsys) -> None:
    out = tmp_path / "set.jsonl.gz"
    board = ["--board", "rules=taylor,start=c3", "--out", str(out)]
    assert cli(["puzzles", "build", "--workers", "0", *board]) == 2
    assert "--workers must be at least 1, not 0" in capsys.readouterr().err
    assert cli(["puzzles", "build", "--count", "3", "--workers", "2", *board]) == 0
    made = read(out)
    assert len(made) == 3
    assert len({position_key(puzzles.position(p)) for p in made}) == 3
    for puzzle in made:
        state = puzzles.position(puzzle)
        assert [state.move_str(m) for m in solve(state, book=False).winning_moves] == [
            puzzle["line"][0]
        ]
