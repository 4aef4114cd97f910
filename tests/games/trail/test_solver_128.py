"""The two-word kernel (regions of 65 to 128 cells) against the reference solver, and the
solver's dispatch between the kernels and the Python layer.

The endgames come from random playouts on 9x9, hex 9x9, hex 10x10 and hex 11x11 boards, stopped once
the snail's region is small enough for the slow reference solver.  To make the two-word
kernel search them with cells in both words, each position is labelled over the whole board
in a random order (as the wide layer's frames label sub-solves).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from trail_endgames import playout_until

from slimetrail.core.registry import get_game
from slimetrail.games.trail import solver
from slimetrail.games.trail.solver import (
    MATE,
    CompactGraph,
    Labelling,
    adjust,
    ckernel,
    goal_move_score,
    kernel_params,
    result_from_scores,
    solve,
)
from slimetrail.games.trail.solver.reference import reference_solve
from slimetrail.games.trail.solver.wide import WideSearch

BOARDS = [
    ("slimetrail", "9", "rastros"),
    ("slimetrail", "9", "taylor"),
    ("slimetrail-hex", "9", "rastros"),  # the board of the hex 9x9 proofs (docs/solved.md)
    ("slimetrail-hex", "9", "taylor"),
    ("slimetrail-hex", "10", "rastros"),
    ("slimetrail-hex", "10", "taylor"),
    ("slimetrail-hex", "11", "rastros"),
    ("slimetrail-hex", "11", "taylor"),
]


def endgame(game, rng: random.Random, limit: int):
    """A position of a random playout from the start, the first whose region (the cells the
    snail can still reach) has at most ``limit`` cells; the game is not over."""
    while (state := playout_until(game, rng, limit)) is None:
        pass
    return state


def two_word_solve(state, distance: bool, shortcuts: bool, rng: random.Random):
    """Every root move's score from the two-word kernel, with the whole board labelled in a
    random order (the snail's cell first, as the solver labels it)."""
    game = state.game
    others = [cell for cell in game.board.cells() if cell != state.snail]
    rng.shuffle(others)
    labels = Labelling(game, [state.snail, *others])
    assert labels.words == 2
    params = kernel_params(game, distance, shortcuts)
    table = labels.new_table(10)  # small: replacement in the table is exercised too
    stats = np.zeros(2, np.int64)
    free = labels.bits(state.free)
    win = MATE if distance else 1
    bound = win + 1 if distance else win
    side = state.to_move - 1
    scores = {}
    for move in state.legal_moves():
        score = goal_move_score(state, move, distance)
        if score is None:
            m = labels.index[move]
            raw = labels.negamax(
                free & ~(1 << m), m, 1 - side, -bound, bound, params, table, stats, 0.0
            )
            score = adjust(raw, distance)
        scores[move] = score
    return result_from_scores(scores, state.to_move, MATE if distance else None, int(stats[0]))


def check_endgames(game_id: str, size: str, rules: str, count: int, limit: int) -> None:
    game = get_game(game_id, size=size, rules=rules)
    rng = random.Random(f"128 {game_id} {size} {rules}")
    for i in range(count):
        state = endgame(game, rng, rng.randrange(3, limit + 1))
        distance = i % 2 == 0
        expected = reference_solve(state, distance=distance)
        got = two_word_solve(state, distance, shortcuts=i % 5 != 0, rng=rng)
        assert (got.value, got.move_values, got.move_plies, got.plies) == (
            expected.value,
            expected.move_values,
            expected.move_plies,
            expected.plies,
        ), (game.spec, state.fen(), distance)


@pytest.mark.parametrize(("game_id", "size", "rules"), BOARDS)
def test_two_word_kernel_agrees_with_reference_on_endgames(game_id, size, rules):
    check_endgames(game_id, size, rules, count=400, limit=14)


@pytest.mark.soak
@pytest.mark.parametrize(("game_id", "size", "rules"), BOARDS)
def test_two_word_kernel_agrees_with_reference_on_many_endgames(game_id, size, rules):
    check_endgames(game_id, size, rules, count=3000, limit=18)


def test_labelling_uses_two_words_only_above_64_cells():
    game = get_game("slimetrail-hex", size="11")
    cells = game.board.cells()
    assert Labelling(game, cells[:64]).words == 1
    wide = Labelling(game, cells[:65])
    assert wide.words == 2 and wide.nbr.shape == (65, 2) and wide.goals.shape == (2, 2)
    # a cell's neighbours in labels, split over the two words
    for k, cell in enumerate(cells[:65]):
        mask = int(wide.nbr[k, 0]) | int(wide.nbr[k, 1]) << 64
        inside = game.board.neighbours[cell] & sum(1 << c for c in cells[:65])
        assert mask == wide.bits(inside)


def test_can_solve_every_board_up_to_128_cells():
    assert solver.can_solve(get_game("slimetrail", size="11"))
    assert solver.can_solve(get_game("slimetrail-hex"))
    assert solver.can_solve(get_game("slimetrail-hex", size="11"))
    assert not solver.can_solve(get_game("slimetrail", size="13"))


LINES_9X9 = [  # 65-70 reachable cells, each quick to solve
    "e4 f3 e2 f2 e1 d2 c2 d1 c1 b2 a3 b3 c4",
    "e4 f3 e2 f2 e1 d2 c2 d1 c1 b2 a3 b3",
]


@pytest.mark.parametrize("rules", ["rastros", "taylor"])
def test_regions_of_65_to_128_cells_go_to_the_two_word_kernel(rules, monkeypatch):
    """solve() hands a 65-128 cell region to the two-word kernel, whose answers equal those
    of the Python layer over the one-word kernel (the way such regions were solved before;
    the reference-solver tests above check the two-word kernel itself)."""
    game = get_game("slimetrail", size="9", rules=rules)
    used = []
    labelling_init = Labelling.__init__

    def spy(self, *args):
        labelling_init(self, *args)
        used.append(self.words)

    monkeypatch.setattr(Labelling, "__init__", spy)
    for line in LINES_9X9:
        state = game.new_state()
        for move in line.split():
            state.push_str(move)
        assert len(CompactGraph(game, state.free, state.snail).cells) > 64
        used.clear()
        fast = solve(state, book=False)
        assert used[0] == 2  # the two-word kernel answered the root
        slow = WideSearch(state, False, 0.0, True, 16, kernel_cells=64).solve(state, 0.0)
        assert (fast.value, fast.move_values) == (slow.value, slow.move_values)


def brute_matching(vertices: list[int], adj: dict[int, set[int]]) -> int:
    if not vertices:
        return 0
    v, rest = vertices[0], vertices[1:]
    best = brute_matching(rest, adj)
    for w in adj[v] & set(rest):
        best = max(best, 1 + brute_matching([u for u in rest if u != w], adj))
    return best


def test_two_word_matching_is_maximum_on_graphs_spread_over_both_words():
    rng = random.Random(128)
    for _ in range(300):
        n = rng.randrange(1, 13)
        labels = rng.sample(range(128), n)  # the graph's vertices, somewhere in 0..127
        p = rng.uniform(0.1, 0.6)
        adj: dict[int, set[int]] = {v: set() for v in labels}
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                if rng.random() < p:
                    adj[a].add(b)
                    adj[b].add(a)
        masks = [sum(1 << w for w in adj.get(v, ())) for v in range(128)]
        nbr = np.array([(m & (1 << 64) - 1, m >> 64) for m in masks], np.uint64)
        size, match = ckernel.max_matching(sum(1 << v for v in labels), nbr, 2)
        assert size == brute_matching(labels, adj)
        for v in labels:  # a matching made of edges of the graph
            assert match[v] == -1 or (match[match[v]] == v and match[v] in adj[v])


@pytest.mark.parametrize("rules", ["taylor", "rastros"])
def test_a_position_on_the_hex_9x9_proofs_line(rules):
    """Hex 9x9 from the centre is a first-player win by d4 (docs/solved.md, hundreds of
    millions of nodes). Four plies down that proof, after d4 c3 d3 d2, player 1 wins by c2
    (a few million nodes): with the shortcuts and by plain search without them."""
    state = get_game("slimetrail-hex", size="9", rules=rules).new_state()
    for text in ("d4", "c3", "d3", "d2", "c2"):
        state.push_str(text)
    for shortcuts in (True, False):
        result = solve(state, book=False, shortcuts=shortcuts)
        assert (result.value, result.to_move) == ("loss", 2), shortcuts
