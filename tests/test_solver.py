"""The exact solver against an independent slow solver, its shortcuts against plain search,
and its Python and command-line interfaces."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sys
import time
from functools import cache

import numpy as np
import pytest

from slimetrail.cli.main import main
from slimetrail.core.game import GameError
from slimetrail.core.registry import get_game
from slimetrail.games.trail.game import TrailState
from slimetrail.games.trail.solver import (
    FIRST_BITS,
    CompactGraph,
    KernelTable,
    SolveTimeout,
    can_solve,
    ckernel,
    kernel_params,
    new_stats,
    release_table,
    solve,
    warm_up,
)
from slimetrail.games.trail.solver import kernel as K
from slimetrail.games.trail.solver.reference import reference_solve

# -- an independent slow solver, written from RULES.md on (column, row) pairs ---------------

KING = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if dc or dr]
HEX = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]


class Slow:
    """Minimax over sets of cells; values (1 win, 0 draw, -1 loss) and game lengths."""

    def __init__(self, game) -> None:
        self.n = game.size
        self.steps = KING if game.board.shape == "square" else HEX
        self.taylor = game.rules == "taylor"
        coords = game.board.coords
        self.goal = {1: coords(game.goals[1]), 2: coords(game.goals[2])}
        self.to_index = game.board.index

    def around(self, cell):
        c, r = cell
        for dc, dr in self.steps:
            if 0 <= c + dc < self.n and 0 <= r + dr < self.n:
                yield (c + dc, r + dr)

    def goal_reachable(self, cell, empty) -> bool:
        seen, todo = {cell}, [cell]
        while todo:
            for nxt in self.around(todo.pop()):
                if nxt in empty and nxt not in seen:
                    if nxt in self.goal.values():
                        return True
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    def moves(self, snail, empty):
        out = []
        for cell in self.around(snail):
            if cell not in empty:
                continue
            if (
                self.taylor
                and cell not in self.goal.values()
                and not self.goal_reachable(cell, empty - {cell})
            ):
                continue
            out.append(cell)
        return out

    @cache  # noqa: B019 - one instance per test
    def result(self, snail, empty: frozenset, mover: int) -> tuple[int, int]:
        """(value for ``mover``, plies to the end) under best play."""
        for player, cell in self.goal.items():
            if snail == cell:
                return (1 if player == mover else -1), 0
        options = [self.after(snail, empty, mover, m) for m in self.moves(snail, empty)]
        if not options:
            return (0 if self.taylor else -1), 0
        return max(options, key=lambda vp: (vp[0], -vp[1] if vp[0] >= 0 else vp[1]))

    def after(self, snail, empty, mover, move) -> tuple[int, int]:
        value, plies = self.result(move, empty - {move}, 3 - mover)
        return -value, plies + 1

    def solve(self, state: TrailState):
        """{move index: (value for the mover, plies)} for every legal move."""
        coords = state.game.board.coords
        empty = frozenset(coords(i) for i in range(state.free.bit_length()) if state.free >> i & 1)
        snail = coords(state.snail)
        if snail in self.goal.values():
            return {}
        return {
            self.to_index(*m): self.after(snail, empty, state.to_move, m)
            for m in self.moves(snail, empty)
        }


NAMES = {1: "win", 0: "draw", -1: "loss"}


def random_position(game, rng: random.Random, max_region: int) -> TrailState:
    """A random legal-looking position: random slime (never on a goal), snail, side."""
    board = game.board
    while True:
        density = rng.uniform(0.2, 0.7)
        cells = [i for i in board.cells() if i not in game.goals[1:]]
        snail = rng.choice(cells)
        free = 0
        for i in board.cells():
            if i in game.goals[1:] or (i != snail and rng.random() > density):
                free |= 1 << i
        state = TrailState(game, free, snail, rng.choice((1, 2)))
        region = board.reachable(1 << snail, state.free) & ~(1 << snail)
        if bin(region).count("1") <= max_region:
            return state


def random_walk(game, rng: random.Random, plies: int) -> TrailState:
    state = game.new_state()
    for _ in range(plies):
        if state.outcome() is not None:
            break
        state.push(rng.choice(state.legal_moves()))
    return state


def check_against_slow(state, slow: Slow, distance: bool) -> None:
    """The compiled solver agrees with the slow solver."""
    check_result(state, slow, distance, solve(state, distance=distance))


def check_result(state, slow: Slow, distance: bool, got) -> None:
    expected = slow.solve(state)
    assert got.value != "draw" or got.over, "a draw is only ever a stuck snail"
    assert got.move_values == {m: NAMES[v] for m, (v, _) in expected.items()}, state.fen()
    if expected:
        best = max(v for v, _ in expected.values())
        assert got.value == NAMES[best], state.fen()
        assert set(got.winning_moves) == {m for m, (v, _) in expected.items() if v == 1}
        assert set(got.drawing_moves) == {m for m, (v, _) in expected.items() if v == 0}
    if distance and expected:
        assert got.move_plies == {m: p for m, (_, p) in expected.items()}, state.fen()
        plies = [p for v, p in expected.values() if v == best]
        assert got.plies == (min(plies) if best > 0 else max(plies)), state.fen()


CONFIGS = [
    ("slimetrail", {"size": "5"}),
    ("slimetrail", {"size": "5", "rules": "taylor"}),
    ("slimetrail-square", {"size": "6"}),
    ("slimetrail-square", {"size": "6", "rules": "rastros"}),
    ("slimetrail-hex", {"size": "5"}),
    ("slimetrail-hex", {"size": "5", "rules": "rastros"}),
    ("slimetrail", {}),
    ("slimetrail", {"rules": "taylor"}),
]


@pytest.mark.parametrize(("game_id", "options"), CONFIGS)
def test_random_positions_agree_with_slow_solver(game_id, options):
    game = get_game(game_id, **options)
    slow = Slow(game)
    rng = random.Random(f"{game_id} {options}")
    for i in range(600):
        state = random_position(game, rng, max_region=16)
        check_against_slow(state, slow, distance=i % 3 == 0)


@pytest.mark.parametrize(("game_id", "options"), CONFIGS)
def test_positions_from_play_agree_with_slow_solver(game_id, options):
    game = get_game(game_id, **options)
    slow = Slow(game)
    rng = random.Random(f"walk {game_id} {options}")
    for i in range(120):
        state = random_walk(game, rng, rng.randrange(6, 34))
        if bin(state.free).count("1") > 18:
            continue
        check_against_slow(state, slow, distance=i % 4 == 0)


def test_7x7_positions_agree_with_reference_solver():
    for rules in ("rastros", "taylor"):
        game = get_game("slimetrail", rules=rules)
        rng = random.Random(rules)
        for _ in range(40):
            state = random_walk(game, rng, rng.randrange(18, 30))
            fast, ref = solve(state), reference_solve(state)
            assert (fast.value, fast.move_values) == (ref.value, ref.move_values), state.fen()


def test_7x7_mid_game_shortcuts_agree_with_plain_search():
    """Pruning next to the opponent's corner and the matching theorem change nothing."""
    for rules in ("rastros", "taylor"):
        game = get_game("slimetrail", rules=rules)
        rng = random.Random(f"shortcuts {rules}")
        for i in range(40):
            state = random_walk(game, rng, rng.randrange(10, 20))
            with_, without = solve(state, distance=i % 4 == 0), solve(state, shortcuts=False)
            assert with_.move_values == without.move_values, state.fen()


def test_the_reference_solver_agrees_with_the_slow_solver():
    game = get_game("slimetrail", size="5")
    slow, rng = Slow(game), random.Random(5)
    for _ in range(60):
        state = random_position(game, rng, max_region=12)
        expected = {m: NAMES[v] for m, (v, _) in slow.solve(state).items()}
        assert reference_solve(state).move_values == expected


# -- the matching theorem ---------------------------------------------------------------------


def brute_matching(vertices: list[int], adj: dict[int, set[int]]) -> int:
    if not vertices:
        return 0
    v, rest = vertices[0], vertices[1:]
    best = brute_matching(rest, adj)
    for w in adj[v]:
        if w in rest:
            best = max(best, 1 + brute_matching([u for u in rest if u != w], adj))
    return best


def test_blossom_matching_is_maximum_on_random_graphs():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randrange(1, 13)
        p = rng.uniform(0.1, 0.6)
        adj: dict[int, set[int]] = {v: set() for v in range(n)}
        for a in range(n):
            for b in range(a + 1, n):
                if rng.random() < p:
                    adj[a].add(b)
                    adj[b].add(a)
        nbr = np.array([sum(1 << w for w in adj[v]) for v in range(n)], np.uint64)
        # numba's (the research searches') and the C kernel's
        for size, match in (
            K.max_matching(np.uint64((1 << n) - 1), nbr, n),
            ckernel.max_matching((1 << n) - 1, nbr, 1),
        ):
            assert size == brute_matching(list(range(n)), adj)
            for v in range(n):  # a matching made of edges of the graph
                assert match[v] == -1 or (match[match[v]] == v and match[v] in adj[v])


def test_geography_by_matching_agrees_with_plain_search():
    """Regions with no goal corner in reach: the matching answer equals the game tree's."""
    seen = 0
    for size in (5, 7):
        game = get_game("slimetrail", size=str(size))
        slow = Slow(game)
        rng = random.Random(size)
        while seen < 150 * (size - 4) // 3:
            state = random_position(game, rng, max_region=16)
            board = game.board
            if board.reachable(1 << state.snail, state.free) & game.goal_mask:
                continue
            seen += 1
            expected = {m: NAMES[v] for m, (v, _) in slow.solve(state).items()}
            assert solve(state).move_values == expected
            assert solve(state, shortcuts=False).move_values == expected


# -- interface --------------------------------------------------------------------------------


def test_can_solve():
    assert can_solve(get_game("slimetrail"))
    assert can_solve(get_game("slimetrail-square"))
    assert can_solve(get_game("slimetrail-hex", size="8"))
    assert can_solve(get_game("slimetrail", size="9"))  # the two-word kernel
    assert can_solve(get_game("slimetrail-hex"))
    assert not can_solve(get_game("slimetrail", size="13"))
    assert not can_solve(get_game("slimetrail-hex", size="12"))


def test_checkpoint_of_a_wide_solve(tmp_path):
    """A position too big for the kernel checkpoints too: a rerun answers from the file, and
    a file of another position or a corrupt one is a clear error that leaves it as it was."""
    state = get_game("slimetrail", size="9").new_state()
    for text in ["e4", "f3", "e2", "f2", "e1", "d2", "c2", "d1", "c1", "b2", "a3", "b3", "c4"]:
        state.push_str(text)
    path = tmp_path / "wide.npz"
    first = solve(state, checkpoint=path, table_bits=16)
    again = solve(state, checkpoint=path, table_bits=16)
    assert again.move_values == first.move_values == solve(state).move_values
    assert again.nodes == first.nodes  # nothing searched again
    with pytest.raises(GameError, match="another solve"):
        solve(get_game("slimetrail", size="9").new_state(), checkpoint=path, table_bits=16)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a checkpoint")
    for position in (state, get_game("slimetrail").new_state()):  # wide and kernel solves
        with pytest.raises(GameError, match="unreadable"):
            solve(position, checkpoint=bad)
    assert bad.read_bytes() == b"not a checkpoint"


def test_wide_solve_in_pieces_adds_up(tmp_path):
    """Cut short again and again by its time limit, a wide solve resumes each time from its
    checkpoint and ends with the answer of one whole solve."""
    from slimetrail.games.trail.solver.wide import WideSearch

    state = get_game("slimetrail-square", size="6").new_state()
    for text in ("c3", "d3"):
        state.push_str(text)

    def search(deadline: float, path=None) -> WideSearch:
        return WideSearch(state, False, deadline, True, 14, kernel_cells=14, checkpoint=path)

    whole = search(0.0).solve(state, time.monotonic())
    path = tmp_path / "pieces.npz"
    pieces = 0
    while True:
        # Each piece gets a little longer than the one before, so that a busy machine, on
        # which a piece of wall-clock time may get no CPU at all, still ends the solve.
        budget = 0.02 * 1.1**pieces
        try:
            result = search(time.monotonic() + budget, path).solve(state, time.monotonic())
            break
        except SolveTimeout:
            pieces += 1
    assert pieces >= 2
    assert (result.value, result.move_values) == (whole.value, whole.move_values)


def test_wide_solve_saves_inside_long_sub_solves(tmp_path, monkeypatch):
    """Saves fall due in the middle of kernel sub-solves: the kernel stops, its table goes
    into the checkpoint with the rest and the sub-solve goes on, answers unchanged.  A run
    killed after a save resumes from that file with the kernel's table as it was."""
    import slimetrail.games.trail.solver as solver
    from slimetrail.games.trail.solver import wide

    monkeypatch.setattr(solver, "SAVE_EVERY", 0.002)
    state = get_game("slimetrail-square", size="6").new_state()
    whole = solve(state, book=False)
    path = tmp_path / "saves.npz"

    def search() -> wide.WideSearch:
        return wide.WideSearch(state, False, 0.0, True, 16, kernel_cells=35, checkpoint=path)

    saving = wide.WideSearch._save
    saves = []

    def save_then_die(self) -> None:
        saving(self)
        if sys._getframe(1).f_code.co_name == "_kernel":
            saves.append(self.frame is not None)
        if len(saves) == 3:
            raise KeyboardInterrupt  # the process is killed right after this save

    monkeypatch.setattr(wide.WideSearch, "_save", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        search().solve(state, time.monotonic())
    assert saves[-1]
    monkeypatch.setattr(wide.WideSearch, "_save", saving)
    resumed = search()
    assert resumed.frame is not None and resumed.kernel_table.words.any()
    assert resumed.solve(state, time.monotonic()).move_values == whole.move_values


@pytest.mark.parametrize(
    ("game_id", "size", "rules"),
    [
        ("slimetrail", "5", "rastros"),
        ("slimetrail", "5", "taylor"),
        ("slimetrail-square", "6", "rastros"),
        ("slimetrail-square", "6", "taylor"),
        ("slimetrail-hex", "5", "rastros"),
        ("slimetrail-hex", "5", "taylor"),
    ],
)
def test_wide_layer_agrees_with_the_kernel(game_id, size, rules):
    """The Python layer for big regions, handing the kernel only small ones here, gives the
    kernel's own answers (values and distances, with and without shortcuts)."""
    from slimetrail.games.trail.solver.wide import WideSearch

    rng = random.Random(f"wide {game_id} {size} {rules}")
    game = get_game(game_id, size=size, rules=rules)
    checked = 0
    # The 36-cell boards' openings take the Python layer seconds each: fewer, later ones there.
    wanted, first_ply = (12, 4) if game.size == 6 else (30, 0)
    while checked < wanted:
        if rng.random() < 0.5:
            state = random_position(game, rng, 40)
        else:
            state = random_walk(game, rng, rng.randrange(first_ply, 8))
        if state.outcome() is not None:
            continue
        for distance in (False, True):
            shortcuts = rng.random() < 0.7
            expected = solve(state, distance=distance, shortcuts=shortcuts, book=False)
            kernel_cells = rng.randrange(1, 20)  # 1: no kernel at all
            search = WideSearch(state, distance, 0.0, shortcuts, 12, kernel_cells=kernel_cells)
            got = search.solve(state, time.monotonic())
            assert (got.move_values, got.move_plies) == (
                expected.move_values,
                expected.move_plies,
            ), (state.fen(), distance, shortcuts, kernel_cells)
        checked += 1


def test_positions_too_big_for_the_kernel_are_solved():
    state = get_game("slimetrail", size="9").new_state()
    for text in ["e4", "f3", "e2", "f2", "e1", "d2", "c2", "d1", "c1", "b2", "a3", "b3", "c4"]:
        state.push_str(text)
    assert len(CompactGraph(state.game, state.free, state.snail).cells) > 64
    result = solve(state)
    assert result.value == "win" and len(result.winning_moves) > 1
    for move in state.legal_moves():  # every move's value agrees with its child's solve
        child = state.copy()
        child.push(move)
        reply = solve(child)
        assert {"win": "loss", "loss": "win"}[reply.value] == result.move_values[move]
    with pytest.raises(SolveTimeout, match="time limit"):
        solve(get_game("slimetrail", size="9").new_state(), time_limit=0.2)


def test_a_thread_reuses_its_table_emptied():
    """The table a solve hands back is the next solve's of that size, in a new generation
    whose search sees none of the old entries: solving a position after other positions (or
    after itself) gives what a fresh table gives."""
    game = get_game("slimetrail")
    rng = random.Random("reuse")
    # Far enough in for the plain-Python reference to be quick.
    states = [random_walk(game, rng, rng.randrange(16, 24)) for _ in range(12)]
    states = [state for state in states if not state.is_over()][:6]
    assert len(states) >= 4
    first = [solve(s, book=False, table_bits=12).nodes for s in states]
    labels = CompactGraph(game, states[0].free, states[0].snail).labels
    table = labels.new_table(12)
    generation = table.generation
    release_table(table)
    again = labels.new_table(12)
    assert again is table and table.generation == generation + 1
    # a one-word bucket never straddles two lines
    assert np.frombuffer(table.words, np.uint64).ctypes.data % 64 == 0
    release_table(table)
    # Each solve starts from an empty table: the same node counts in any order, and a
    # position solved twice in a row (its entries all in the table) searches as much again.
    assert [solve(s, book=False, table_bits=12).nodes for s in reversed(states)] == first[::-1]
    assert [solve(s, book=False, table_bits=12).nodes for s in states] == first
    for state in states:
        fresh = solve(state, book=False, table_bits=12)
        assert fresh.move_values == reference_solve(state).move_values, state.fen()


def test_a_table_is_zeroed_when_its_generations_run_out():
    table = KernelTable(np.full(12, 7, np.uint64), ckernel.MAX_GENERATION - 1, 2)
    table.used = 12
    table.renew(2)
    assert table.generation == ckernel.MAX_GENERATION and table.words.all()
    table.renew(2)
    assert table.generation == 1 and not table.words.any()


# A 7x7 position won by the side to move (White) under Rastros rules; with the same cells
# under Taylor's, most of its moves change value.
WON = "7/3xx2/3xxxx/3xxx1/1x3x1/1ox1x2/3x3 1"


def test_a_renewed_table_answers_nothing_from_before():
    """Every slot of the table holds a won position's key with a loss for it, live in the
    generation ``renew`` takes next when read as two-word entries.  Written as entries of
    that size in an earlier generation, the new generation skips them; written as entries
    of another size (the wide layer's frames of up to 64 cells and of more share one
    table), a key word read as a data word may carry any generation: the table is zeroed."""
    # Won by Black, whose snail is next to no goal: the search starts with a probe.
    state = get_game("slimetrail").state_from_fen("7/7/7/1xox3/xxxxx2/1xxxxx1/1xxxxx1 2")
    graph = CompactGraph(state.game, state.free, state.snail)
    labels, side = graph.labels, state.to_move - 1
    params = kernel_params(state.game, False, True)

    def score(table: KernelTable) -> int:
        return labels.negamax(graph.free, 0, side, -1, 1, params, table, new_stats(), 0.0)

    assert labels.entry_words == 2 and score(labels.new_table(8)) == 1
    shift = ckernel.GENERATION_SHIFT
    for written_as in (2, 3):
        table = labels.new_table(8)
        table.entry_words, table.generation, table.used = written_as, 4, len(table.words)
        lost = side | (-1 + 0x8000) << 8 | 5 << shift  # exact, a loss, generation 5
        if written_as == 2:
            lost -= 1 << shift  # entries of this size carry the generation they were written in
        words = np.frombuffer(table.words, np.uint64)
        words[0::2], words[1::2] = graph.free, lost
        table.renew(2)
        assert score(table) == 1
        assert table.generation == (5 if written_as == 2 else 1)
        release_table(table)


def test_a_forked_process_leaves_its_parents_tables_alone():
    """A process forked after a solve (the puzzle builder's and a batch's workers) writes
    its own copy of the thread's spare tables: the parent's next solve, in the next
    generation, finds none of the child's entries (a shared mapping let a Taylor solve in
    the child answer the parent's Rastros solve of the same cells)."""
    rastros = get_game("slimetrail").state_from_fen(WON)
    taylor = TrailState(get_game("slimetrail", rules="taylor"), rastros.free, rastros.snail, 1)
    expected = solve(rastros, book=False)
    assert solve(taylor, book=False).move_values != expected.move_values
    labels = CompactGraph(rastros.game, rastros.free, rastros.snail).labels
    table = labels.new_table(FIRST_BITS)  # the spare table both solves took
    assert table.generation > 1
    release_table(table)
    before = bytes(table.words)
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            solve(taylor, book=False)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert bytes(table.words) == before
    assert solve(rastros, book=False).move_values == expected.move_values


def test_workers_forked_after_a_solve_answer_right_while_solving_at_once():
    """Two processes forked after a solve (as a batch's pool is) solve the Rastros and the
    Taylor position of the same cells over and over at the same time; each always gets
    its own answers (with shared tables, zeroed or not, about one solve in thirteen went
    wrong)."""
    rastros = get_game("slimetrail").state_from_fen(WON)
    taylor = TrailState(get_game("slimetrail", rules="taylor"), rastros.free, rastros.snail, 1)
    expected = [solve(state, book=False).move_values for state in (rastros, taylor)]
    children = []
    for state, values in zip((rastros, taylor), expected, strict=True):
        child = os.fork()
        if child == 0:  # pragma: no cover - a worker: its exit status counts wrong answers
            wrong = 0
            try:
                wrong = sum(solve(state, book=False).move_values != values for _ in range(150))
            finally:
                os._exit(min(wrong, 100))
        children.append(child)
    assert [os.waitstatus_to_exitcode(os.waitpid(c, 0)[1]) for c in children] == [0, 0]


def test_solve_does_not_change_the_state():
    game = get_game("slimetrail")
    state = game.new_state()
    for text in ("c3", "b3", "c4"):
        state.push_str(text)
    fen, stack = state.fen(), list(state.move_stack)
    solve(state, distance=True)
    assert (state.fen(), state.move_stack) == (fen, stack)


def test_finished_positions():
    game = get_game("slimetrail", size="5")
    state = game.new_state()
    for text in ("b2", "a1"):
        state.push_str(text)
    result = solve(state, distance=True)
    # Player 2 stepped into player 1's corner: player 1, to move, has won.
    assert result.over and result.value == "win" and result.to_move == 1
    assert result.plies == 0 and result.move_values == {}


def test_distance_win_next_to_own_goal_comes_first():
    game = get_game("slimetrail", size="5")
    state = game.state_from_fen("5/5/5/1o3/5 1")
    result = solve(state, distance=True)
    assert result.value == "win" and result.plies == 1
    assert result.winning_moves[0] == game.goals[1]
    # The same position with player 2 to move: a1 is the opponent's corner, it loses at once.
    result = solve(game.state_from_fen("5/5/5/1o3/5 2"), distance=True)
    assert result.move_values[game.goals[1]] == "loss" and result.move_plies[game.goals[1]] == 1


def test_time_limit_is_kept():
    warm_up()
    state = get_game("slimetrail").new_state()
    started = time.monotonic()
    with pytest.raises(SolveTimeout):
        solve(state, time_limit=0.2, book=False)  # the opening book would answer at once
    assert time.monotonic() - started < 1.0


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["solve", *argv])
    return code, out.getvalue()


def test_cli_json():
    code, out = _cli("--size", "5", "--json", "--distance", "c2")
    assert code == 0
    data = json.loads(out)
    state = get_game("slimetrail", size="5").new_state()
    state.push_str("c2")
    expected = solve(state, distance=True)
    assert data["value"] == expected.value and data["to_move"] == 2
    assert data["winning_moves"] == [state.move_str(m) for m in expected.winning_moves]
    assert data["plies"] == expected.plies
    assert {"drawing_moves", "nodes", "seconds"} <= set(data)


def test_cli_text_fen_and_finished_game():
    code, out = _cli("--size", "5", "--fen", "5/5/2x2/2x2/2ox1 2")
    assert code == 0 and "player 2" in out and ("WIN" in out or "LOSS" in out)
    code, out = _cli("--size", "5", "b2", "a1")
    assert code == 0 and "game is over" in out and "Green wins" in out


def test_cli_solves_any_game_with_an_exact_solver(capsys):
    """The command goes through the game's exact solver: Slither's on 4x4 agrees with the
    library; a game without one, and options a solver lacks, are refused by name."""
    code, out = _cli("--game", "slither", "--size", "4", "--json")
    state = get_game("slither", size=4).new_state()
    expected = state.game.exact_solver().solve(state)
    assert code == 0
    assert json.loads(out)["value"] == expected.value
    assert len(json.loads(out)["move_values"]) == len(state.legal_moves())
    code, _ = _cli("--game", "slime-moku")
    assert code == 2 and "slime-moku has no exact solver" in capsys.readouterr().err
    code, _ = _cli("--game", "slither", "--size", "4", "--workers", "2")
    assert code == 2 and "no --workers" in capsys.readouterr().err


def test_cli_checkpoint(tmp_path, capsys, caplog):
    # --workers N (a split over Ray) is tested in tests/cluster/ray_cases.py, on the Ray
    # instance started there once: starting one here took most of this test's time.
    caplog.set_level("INFO", logger="slimetrail.games.trail.solver")
    plain = json.loads(_cli("--size", "5", "--json", "--no-book")[1])
    one_dir = tmp_path / "one"
    code, out = _cli("--size", "5", "--json", "--checkpoint", str(one_dir))
    data = json.loads(out)
    assert code == 0
    assert (data["value"], data["move_values"]) == (plain["value"], plain["move_values"])
    assert sorted(data["winning_moves"]) == sorted(plain["winning_moves"])
    assert len(list(one_dir.iterdir())) == 1
    assert f"saved {one_dir}" in caplog.text  # a long solve says when it saves
    assert main(["solve", "--size", "5", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_cli_bad_move(capsys):
    code = main(["solve", "--size", "5", "zz"])
    assert code == 2 and "'zz'" in capsys.readouterr().err


def test_checkpoint_resumes_a_long_solve(tmp_path):
    state = get_game("slimetrail").new_state()
    for text in ("c3", "b2"):
        state.push_str(text)
    whole = solve(state, book=False, table_bits=16)
    # Pieces a twentieth of a whole solve on this machine, so that no machine is fast enough
    # to finish in the first piece, even when the whole solve was timed under a heavier load
    # than the pieces (a fifth was not: CI, 2026-12-03, a solver run beside the suite).
    piece = whole.seconds / 20
    path = tmp_path / "table.npz"
    pieces = 0
    while True:
        try:
            result = solve(state, time_limit=piece, checkpoint=path, table_bits=16)
            break
        except SolveTimeout:
            pieces += 1
            assert pieces < 200, "no progress between pieces"
    assert pieces >= 1
    assert result.move_values == whole.move_values
    # Solved: a rerun answers from the checkpoint without searching again.
    again = solve(state, checkpoint=path, table_bits=16)
    assert again.move_values == whole.move_values and again.nodes == result.nodes
    other = get_game("slimetrail").new_state()
    other.push_str("c3")
    with pytest.raises(GameError, match="another solve"):
        solve(other, checkpoint=path, table_bits=16)


def test_checkpoint_is_saved_during_a_long_solve(tmp_path, monkeypatch):
    """A checkpointed solve also saves while the kernel runs, so a killed run keeps its
    work: the rerun resumes from the last save and gives the answer of a whole solve."""
    import slimetrail.games.trail.solver as solver

    monkeypatch.setattr(solver, "SAVE_EVERY", 0.005)
    state = get_game("slimetrail").new_state()
    for text in ("c3", "b2"):
        state.push_str(text)
    whole = solve(state, table_bits=16)
    saving = solver._Root._save
    saves = []

    def save_then_die(self, *args) -> None:
        saving(self, *args)
        saves.append(int(self.stats[solver.S_NODES]))
        if len(saves) == 3:
            raise KeyboardInterrupt  # the process is killed right after this save

    monkeypatch.setattr(solver._Root, "_save", save_then_die)
    path = tmp_path / "long.npz"
    with pytest.raises(KeyboardInterrupt):
        solve(state, checkpoint=path, table_bits=16)
    # The rerun saves as usual (every 5 ms, the rest of the solve took several times longer).
    monkeypatch.undo()
    resumed = solve(state, checkpoint=path, table_bits=16)
    assert resumed.move_values == whole.move_values
    assert saves[-1] > 0 and resumed.nodes > saves[-1]  # counted on from the saved run
