"""The compiled Slime-Moku solver against brute force on the independent model and against
the Python solver."""

from __future__ import annotations

import contextlib
import io
import random

import pytest
from moku_model import LETTERS, from_fen, minimax

from research.moku import pysolver as solver
from research.moku.fastsolve import (
    load_table,
    main,
    prove_replies,
    save_table,
    solve_start,
    winning_line,
)
from slimetrail.core.game import GameError, GameOptionError, SolveTimeout
from slimetrail.core.registry import get_game
from slimetrail.games.moku.solver import FastSearch

VALUES = {"win": 1, "draw": 0, "loss": -1}


def fast_value(search: FastSearch, state) -> int:
    mine, theirs = (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
    return search.value(mine, theirs, state.empty, state.slime)


# kinds: how many of win, draw, loss must turn up (random 7x7 games rarely get near the end
# without a row, and then as draws).
@pytest.mark.parametrize(
    ("n", "k", "games", "kinds"), [(4, 4, 20, 3), (5, 4, 12, 3), (5, 5, 8, 2), (7, 4, 12, 1)]
)
def test_values_match_brute_force_near_the_end(n: int, k: int, games: int, kinds: int) -> None:
    game = get_game("slime-moku", size=n, k=k)
    search = FastSearch(game.board, table_bits=16)
    rng = random.Random(n * 10 + k)
    seen = set()
    for _ in range(games):
        state = game.new_state()
        while not state.is_over():
            if state.empty.bit_count() <= 7:
                exact = minimax(from_fen(n, k, state.fen()))
                assert fast_value(search, state) == exact, state.fen()
                seen.add(exact)
            state.push(rng.choice(state.legal_moves()))
    assert len(seen) >= kinds, seen


def test_values_match_the_python_solver_in_mid_game() -> None:
    game = get_game("slime-moku", size=5, k=4)
    search = FastSearch(game.board, table_bits=18)
    rng = random.Random(5)
    for _ in range(6):
        state = game.new_state()
        for _ in range(8):
            state.push(rng.choice(state.legal_moves()))
        if state.is_over():
            continue
        assert fast_value(search, state) == VALUES[solver.solve(state).value], state.fen()


def test_the_small_starts_are_draws() -> None:
    values, nodes = solve_start(4, 4)
    assert set(values.values()) == {"draw"} and len(values) == 8 and nodes > 0


def test_limits() -> None:
    with pytest.raises(GameOptionError):
        FastSearch(get_game("slime-moku", size=8, k=4).board)
    state = get_game("slime-moku", size=6, k=4).new_state()
    state.push(state.legal_moves()[0])
    search = FastSearch(state.game.board, table_bits=12)
    with pytest.raises(SolveTimeout):
        search.value(state.white, state.black, state.empty, state.slime, time_limit=0.01)


@pytest.mark.parametrize(("n", "k"), [(4, 4), (4, 5), (5, 4), (5, 5)])
def test_every_first_move_matches_the_python_solver(n: int, k: int) -> None:
    state = get_game("slime-moku", size=n, k=k).new_state()
    slow = solver.solve(state)
    expected = {state.move_str(m): v for m, v in slow.move_values.items()}
    for sym_empty in (0, 12):
        values, _ = solve_start(n, k, table_bits=18, sym_empty=sym_empty)
        assert values == expected
        wins, _ = solve_start(n, k, table_bits=18, exact=False)
        assert wins == {m: "win" if v == "win" else "no win" for m, v in expected.items()}


def mid_games(n: int, k: int, plies: int, count: int, seed: int):
    game = get_game("slime-moku", size=n, k=k)
    rng = random.Random(seed)
    while count:
        state = game.new_state()
        for _ in range(plies):
            state.push(rng.choice(state.legal_moves()))
            if state.is_over():
                break
        if not state.is_over():
            count -= 1
            yield state


def test_null_windows_and_plain_keys_agree_with_the_python_solver_on_6x6() -> None:
    board = get_game("slime-moku", size=6, k=4).board
    plain = FastSearch(board, table_bits=18, sym_empty=99)  # never keyed by symmetry
    mixed = FastSearch(board, table_bits=18, sym_empty=14)
    seen = set()
    for state in mid_games(6, 4, 16, 6, seed=6):
        exact = VALUES[solver.solve(state).value]
        seen.add(exact)
        assert fast_value(plain, state) == exact, state.fen()
        mine, theirs = (
            (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
        )
        node = (mine, theirs, state.empty, state.slime)
        # A fail-soft null window answers its one question: above or below its cut.
        assert (mixed.value(*node, window=(0, 1)) >= 1) == (exact == 1), state.fen()
        assert (mixed.value(*node, window=(-1, 0)) <= -1) == (exact == -1), state.fen()
    assert len(seen) >= 2, seen


def test_a_node_budget_stops_the_search_and_the_table_resumes_it() -> None:
    board = get_game("slime-moku", size=6, k=4).board
    for state in mid_games(6, 4, 14, 2, seed=9):
        search = FastSearch(board, table_bits=18, sym_empty=14)
        mine, theirs = (
            (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
        )
        with pytest.raises(SolveTimeout):
            search.value(mine, theirs, state.empty, state.slime, budget=1000)
        assert search.nodes == 1001  # the node past the budget stops it
        assert fast_value(search, state) == VALUES[solver.solve(state).value], state.fen()


def test_the_principal_line_of_a_won_position_ends_in_the_winners_row_on_the_model() -> None:
    board = get_game("slime-moku", size=6, k=4).board
    search = FastSearch(board, table_bits=18, sym_empty=14)
    checked = 0
    for state in mid_games(6, 4, 14, 12, seed=3):
        exact = VALUES[solver.solve(state).value]
        if exact != 1:
            with pytest.raises(GameError):
                winning_line(search, state, budget=2000)
            continue
        line = winning_line(search, state, budget=2000)
        model = from_fen(6, 4, state.fen())
        mover = model.to_move
        for text in line:
            model.play((LETTERS.index(text[0]), int(text[1:]) - 1))
        assert model.winner() == mover, (state.fen(), line)
        checked += 1
    assert checked >= 2


@pytest.fixture(scope="module")
def proof_after_c3() -> tuple[FastSearch, bool, list[str]]:
    """The 6x6 (k=4) proof of White's replies to c3 in one run, made once for the two tests
    below: its search (table filled), whether Black wins, and the lines it printed."""
    six = FastSearch(get_game("slime-moku", size=6, k=4).board, 20, sym_empty=14)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        wins = prove_replies(six, 6, 4, "c3", None)
    return six, wins, printed.getvalue().splitlines()


def test_replies_one_at_a_time_give_the_first_moves_value(proof_after_c3) -> None:
    five = get_game("slime-moku", size=5, k=4)
    state = five.new_state()
    first = state.move_str(state.legal_moves()[0])
    state.push(state.legal_moves()[0])
    black_wins = solver.solve(state).value == "loss"  # for White, to move
    assert prove_replies(FastSearch(five.board, 18), 5, 4, first, None) == black_wins
    # 6x6: Black wins after c3 (the Python solver cannot do the whole board: the compiled
    # solve of the start, checked above on the small boards, is the reference).
    six, wins, printed = proof_after_c3
    assert wins
    proven = [line for line in printed if "c3 " in line]
    assert len(proven) == 4 and all("Black wins" in line for line in proven)
    values, _ = solve_start(6, 4, exact=False, search=six, firsts=["c3"])
    assert values == {"c3": "win"}  # e5 is no image of c3 on 6x6 (d4 is off the centre)


def test_replies_can_be_split_over_runs(proof_after_c3, capsys) -> None:
    """``only`` proves just the named replies (one long solve split over processes): the
    6x6 replies to c3, two runs of two, print the same four proofs as one run."""
    board = get_game("slime-moku", size=6, k=4).board
    _, everything, printed = proof_after_c3
    whole = [line for line in printed if "Black" in line]
    replies = [line.split()[1].rstrip(":") for line in whole]
    assert everything and len(replies) == 4
    split = []
    for part in (set(replies[:2]), set(replies[2:])):
        assert prove_replies(FastSearch(board, 20, sym_empty=14), 6, 4, "c3", None, part)
        split += [line for line in capsys.readouterr().out.splitlines() if "Black" in line]
    assert sorted(line.split(" (")[0] for line in split) == sorted(
        line.split(" (")[0] for line in whole
    )


def test_a_saved_table_resumes_the_solve_where_it_stopped(tmp_path) -> None:
    """A table saved part-way through a solve, loaded into a fresh search, gives the same value
    in fewer nodes than a cold search (it keeps what was proved) and continues the node count;
    a table of another board or table size, or a file that is no table, is refused and
    leaves the search as it was."""
    board = get_game("slime-moku", size=6, k=4).board
    state = next(iter(mid_games(6, 4, 14, 1, seed=9)))
    exact = VALUES[solver.solve(state).value]
    mine, theirs = (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
    node = (mine, theirs, state.empty, state.slime)

    cold = FastSearch(board, table_bits=18, sym_empty=14)
    assert cold.value(*node) == exact
    first = FastSearch(board, table_bits=18, sym_empty=14)
    with pytest.raises(SolveTimeout):
        first.value(*node, budget=cold.nodes // 2)
    path = tmp_path / "six.npz"
    save_table(first, path)
    resumed = FastSearch(board, table_bits=18, sym_empty=14)
    load_table(resumed, path)
    assert resumed.nodes == first.nodes
    assert resumed.value(*node) == exact
    assert resumed.nodes - first.nodes < cold.nodes

    for other, words in (
        (FastSearch(get_game("slime-moku", size=5, k=4).board, 18, 14), "5x5"),
        (FastSearch(board, table_bits=17, sym_empty=14), "entries"),
        (FastSearch(board, table_bits=18, sym_empty=0), "--sym-empty"),
    ):
        with pytest.raises(ValueError, match=words):
            load_table(other, path)
        assert other.nodes == 0 and not other.t_info.any()
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a table")
    with pytest.raises(ValueError, match="unreadable"):
        load_table(resumed, junk)
    cut = tmp_path / "cut.npz"  # a table cut short: a zip without its directory
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match="unreadable"):
        load_table(resumed, cut)
    assert resumed.t_info.any()


def test_the_command_line_saves_its_table_and_a_rerun_resumes_it(tmp_path, capsys) -> None:
    table = tmp_path / "five.npz"
    argv = ["5", "4", "--table-bits", "16", "--chunk", "2000", "--every", "0"]
    argv += ["--table", str(table)]
    main(argv)
    whole = capsys.readouterr().out
    assert "table saved" in whole and table.exists()
    main(argv)
    again = capsys.readouterr().out
    assert again.startswith("resumed from")
    # The same values of every first move.
    assert again.splitlines()[-1].split(";")[:2] == whole.splitlines()[-1].split(";")[:2]
    with pytest.raises(SystemExit):
        main(["5", "4", "--table", str(table)])  # no --chunk
    assert "--table needs --chunk" in capsys.readouterr().err
