"""The compiled max^n MCTS against its readable reference (ai.SnakeMcts on the generic MCTS):
the same root and node turns, the same returns for a leaf, a tree whose visits add up, and
the time, iteration and stop bounds."""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from slimetrail.ai import Limit
from slimetrail.core.game import GameError, Outcome
from slimetrail.games.snakepit import ai, fastmcts, kernel
from slimetrail.games.snakepit.ai import KERNELS
from slimetrail.games.snakepit.game import SnakePitGame, SnakePitState

GAME = SnakePitGame()


@pytest.fixture(autouse=True, scope="module")
def loaded_kernels() -> None:
    KERNELS.run()


def random_state(seed: int, plies: int) -> SnakePitState:
    rng = random.Random(seed)
    state = GAME.new_state()
    for _ in range(plies):
        if state.is_over():
            break
        state.push(rng.choice(state.legal_moves()))
    return state


def test_leaf_returns_are_the_outcome_ranking_of_the_python_playout() -> None:
    """What ``SnakePitState.playout`` builds: the players in ranked by value (ties by
    number), then the players out, the last to go out first."""
    for n_out, values in itertools.product((0, 1, 2), ([0, 3.0, 1.0, 2.0], [0, 2.0, 2.0, 1.0])):
        for out in itertools.permutations((1, 2, 3), n_out):
            left = sorted((p for p in (1, 2, 3) if p not in out), key=lambda p: -values[p])
            expected = Outcome.ranking([*left, *reversed(out)]).returns()
            returns = np.zeros(4)
            gone = np.zeros(2, np.int64)
            gone[:n_out] = out
            fastmcts.leaf_returns(gone, n_out, np.array(values), returns)
            assert tuple(returns[1:]) == expected, (out, values)


def test_leaves_are_played_to_the_end_from_the_endgame_on() -> None:
    state = random_state(7, 10)
    empty = kernel.arrays(state.heads, state.empty, state.out)[1]
    left = int(empty.sum())
    assert fastmcts.span(left, 3, left - 1) == 3
    assert fastmcts.span(left, 3, left) == kernel.MAX_PLIES
    # Every position of the tree is in the endgame: the same search as full playouts.
    trees = []
    for turns, endgame in ((3, left), (kernel.MAX_PLIES, 0), (3, 0)):
        search = fastmcts.CompiledMcts(
            state, seed=1, width=4, root_width=6, tries=3, turns=turns, endgame=endgame
        )
        search.run(Limit(nodes=200))
        used = int(search.meta[0])
        trees.append((search.visits[:used].copy(), search.sums[:used].copy()))
    assert all((a == b).all() for a, b in zip(trees[0], trees[1], strict=True))
    assert not all(
        (a.shape == b.shape and (a == b).all()) for a, b in zip(trees[0], trees[2], strict=True)
    )


@pytest.mark.parametrize("plies", [0, 3, 12])
def test_the_tree_offers_the_reference_turns_and_its_visits_add_up(plies: int) -> None:
    state = random_state(plies, plies)
    search = fastmcts.CompiledMcts(state, seed=1, width=4, root_width=6, tries=3, turns=2)
    reference = ai.SnakeMcts(state, seed=1, width=4, root_width=6, tries=3, turns=2)
    root = [search.turn(c) for c in range(1, 1 + int(search.counts[0]))]
    assert root == reference.root.untried[::-1]  # best first
    result = search.run(Limit(nodes=300))
    assert result.nodes == search.iterations == 300 and result.move in state.legal_moves()
    first, count = int(search.firsts[0]), int(search.counts[0])
    assert sum(search.visits[first : first + count]) == search.visits[0] == 300
    # A node below the root: the reference's turns by the snakes' exits, in order.
    child = max(range(first, first + count), key=lambda c: search.visits[c])
    if search.players[child] > 0 and search.firsts[child] >= 0:
        after = state.copy()
        after.push(search.turn(child))
        lo, m = int(search.firsts[child]), int(search.counts[child])
        assert [search.turn(c) for c in range(lo, lo + m)] == ai.quick_turns(after, 4)
    # Every node's mean return per player is in [0, 1] and the three add up to 1.5.
    used = int(search.meta[0])
    seen = search.visits[1:used] > 0
    totals = search.sums[1:used][seen].sum(axis=1) / search.visits[1:used][seen]
    assert np.allclose(totals, 1.5)


def test_the_tree_is_narrow_and_its_sums_are_exact() -> None:
    """A 1 s move makes millions of nodes: each takes 65 bytes (it took 128 in 64-bit
    arrays), and the sums of returns (0, 1/2, 1) lose nothing."""
    search = fastmcts.CompiledMcts(
        random_state(5, 6), seed=3, width=40, root_width=40, tries=3, turns=3
    )
    arrays = (*search.tree(), search.priors)
    assert sum(a.itemsize * int(np.prod(a.shape[1:])) for a in arrays) == 65
    search.run(Limit(nodes=20_000))
    used = int(search.meta[0])
    visits = search.visits[:used].astype(np.int64)
    assert visits[0] == 20_000
    # Three players' returns add up to 1.5 a visit, exactly.
    assert (search.sums[:used].astype(np.float64).sum(axis=1) * 2 == 3 * visits).all()


def test_an_iteration_bound_is_deterministic_for_a_seed() -> None:
    state = random_state(4, 8)
    level = ai.CompiledMctsLevel("test")
    first = level.play(state, Limit(nodes=500), random.Random(3))
    again = level.play(state, Limit(nodes=500), random.Random(3))
    assert (first.move, first.info) == (again.move, again.info)
    assert first.pv[0] == first.move and len(first.pv) >= 2


def test_the_time_limit_and_a_stop_event_end_the_search() -> None:
    state = random_state(5, 6)
    times = []
    for _ in range(2):  # the faster of two, within 1.5x: a loaded machine delays the watcher
        started = time.perf_counter()
        search = fastmcts.CompiledMcts(state, seed=2, width=8, root_width=24, tries=3, turns=3)
        result = search.run(Limit(time=0.3), started=started)
        times.append(time.perf_counter() - started)
        assert result.move in state.legal_moves() and result.nodes > 0
    assert min(times) <= 0.45, times
    stop = threading.Event()
    threading.Timer(0.1, stop.set).start()
    search = fastmcts.CompiledMcts(state, seed=2, width=8, root_width=24, tries=3, turns=3)
    reports = []
    started = time.perf_counter()
    result = search.run(Limit(), stop=stop, on_info=reports.append)
    assert time.perf_counter() - started < 0.5 and reports == [result]


def test_a_winning_turn_is_played_without_searching() -> None:
    for seed in range(40):
        state = GAME.new_state()
        rng = random.Random(seed)
        while not state.is_over():
            wins = []
            for move in state.legal_moves():
                state.push(move)
                outcome = state.outcome()
                state.pop()
                if outcome is not None and outcome.winner == state.to_move:
                    wins.append(move)
            if wins and len(wins) < len(state.legal_moves()):
                search = fastmcts.CompiledMcts(
                    state, seed=1, width=8, root_width=24, tries=3, turns=3
                )
                result = search.run(Limit(nodes=100))
                assert result.move in wins and result.proven == "win" and result.nodes == 0
                return
            state.push(rng.choice(state.legal_moves()))
    pytest.fail("no random game offered a win in one")


def test_a_finished_game_cannot_be_searched() -> None:
    state = random_state(6, 200)
    assert state.is_over()
    with pytest.raises(GameError, match="over"):
        fastmcts.CompiledMcts(state, seed=1, width=4, root_width=4, tries=3, turns=3)


def test_judged_nodes_offer_the_evaluations_best_turns_and_deeper_ones_the_exits() -> None:
    state = random_state(3, 3)
    search = fastmcts.CompiledMcts(state, seed=1, width=4, root_width=6, tries=3, turns=2, judged=2)
    search.run(Limit(nodes=400))
    first, count = int(search.firsts[0]), int(search.counts[0])
    checked = 0
    for child in range(first, first + count):
        if search.firsts[child] < 0 or search.players[child] <= 0:
            continue
        after = state.copy()
        after.push(search.turn(child))
        lo, m = int(search.firsts[child]), int(search.counts[child])
        assert [search.turn(c) for c in range(lo, lo + m)] == ai.best_turns(after, 4)
        grandchild = max(range(lo, lo + m), key=lambda c: search.visits[c])
        if search.firsts[grandchild] >= 0 and search.players[grandchild] > 0:
            after.push(search.turn(grandchild))
            lo, m = int(search.firsts[grandchild]), int(search.counts[grandchild])
            assert [search.turn(c) for c in range(lo, lo + m)] == ai.quick_turns(after, 4)
            checked += 1
    assert checked >= 2


def test_progressive_bias_turns_the_search_to_the_evaluations_favourites() -> None:
    assert fastmcts.prior(0.0) == 0.5
    assert fastmcts.prior(2.0) == pytest.approx(0.731, abs=0.001)
    assert fastmcts.prior(kernel.WIN) == 1.0 and fastmcts.prior(-kernel.WIN) < 1e-20
    state = random_state(8, 6)
    favoured = []
    for bias in (0.0, 20.0):
        search = fastmcts.CompiledMcts(
            state, seed=1, width=8, root_width=24, tries=3, turns=3, bias=bias
        )
        search.run(Limit(nodes=2000))
        first, count = int(search.firsts[0]), int(search.counts[0])
        visits = search.visits[first : first + count]
        priors = search.priors[first : first + count]
        assert visits.sum() == 2000 and priors[0] == priors.max()  # best first
        favoured.append(float((visits * priors).sum() / visits.sum()))
    assert favoured[1] > favoured[0]


# The top level's root visits after 3,000 iterations (seed 3) from two seeded random
# positions, and the nodes of its tree, as the search before its kernels were made faster
# (git 90006f4, session 28) grew them: the insertion sort of a player's snakes, the exits
# scored as the turns are listed and the position reset in place must not change a visit.
EARLIER_TREES = {
    (5, 4): (
        10457,
        "28 19 151 23 23 1456 25 24 313 23 52 211 19 25 24 24 45 23 29 19"
        " 18 12 21 13 30 19 16 25 48 23 40 6 17 6 10 11 19 19 69 22",
    ),
    (6, 14): (
        11433,
        "59 100 30 121 75 294 86 68 362 114 36 42 47 30 26 24 47 26 40 26"
        " 57 19 38 70 192 148 40 20 35 36 39 37 15 40 24 30 129 332 39 7",
    ),
}


@pytest.mark.parametrize("position", sorted(EARLIER_TREES))
def test_the_faster_kernels_grow_the_earlier_searchs_tree(position: tuple[int, int]) -> None:
    top = ai.LADDER.levels[ai.LADDER.top]
    assert isinstance(top, ai.CompiledMctsLevel)
    # The pinned trees were grown at the width the top level had then, each node expanded
    # on its second visit.
    search = replace(top, width=16, expand_at=1).search(random_state(*position), 3)
    search.run(Limit(nodes=3000))
    first, count = int(search.firsts[0]), int(search.counts[0])
    nodes, visits = EARLIER_TREES[position]
    expected = [int(v) for v in visits.split()]
    assert (int(search.meta[0]), search.visits[first : first + count].tolist()) == (nodes, expected)


def test_the_top_levels_tree_stops_growing_at_its_capacity() -> None:
    top = ai.LADDER.levels[ai.LADDER.top]
    assert isinstance(top, ai.CompiledMctsLevel)
    search = replace(top, capacity=400).search(random_state(3, 6), 4)
    result = search.run(Limit(nodes=3000))
    assert len(search.players) == 400 and int(search.meta[0]) <= 400
    assert result.info["iterations"] == 3000  # a full tree values its leaves as they are
    assert result.move in search.state.legal_moves()


@pytest.mark.parametrize("expand_at", [1, 4])
def test_a_node_offers_its_turns_once_it_has_been_valued_expand_at_times(expand_at: int) -> None:
    """Below the root a node's turns are listed (its children made) on the visit after its
    ``expand_at``-th, not before; until then each visit values the node itself."""
    state = random_state(9, 9)
    search = fastmcts.CompiledMcts(
        state, seed=2, width=8, root_width=16, tries=3, turns=3, expand_at=expand_at
    )
    search.run(Limit(nodes=6000))
    used = int(search.meta[0])
    visits = search.visits[:used].astype(np.int64)
    live = (search.players[:used] > 0) & (np.arange(used) > 0)  # not the root, game not over
    expanded = live & (search.firsts[:used] >= 0)
    waiting = live & (search.firsts[:used] < 0) & (visits > 0)
    assert expanded.sum() > 50 and waiting.sum() > 50
    assert visits[expanded].min() == expand_at + 1
    assert visits[waiting].max() == expand_at
    # A node's children's visits add up to its own, less the visits before it expanded.
    for node in np.flatnonzero(expanded)[:200]:
        lo, m = int(search.firsts[node]), int(search.counts[node])
        assert visits[lo : lo + m].sum() == visits[node] - expand_at


def test_trees_side_by_side_sum_their_roots_and_share_the_iterations() -> None:
    """Root parallelism: each tree runs on its own thread, the ``nodes`` bound shared out;
    the answer's turn is the most visited over the roots' summed visits, its value their
    summed returns' mean -- the same as one tree's answer when the other tree is empty."""
    state = random_state(4, 8)
    level = ai.CompiledMctsLevel("test")
    trees = level.searches(state, random.Random(5), 2)
    assert len(trees) == 2 and trees[0].rng[0] != trees[1].rng[0]
    result = fastmcts.run_beside(trees, Limit(nodes=1001))
    assert [int(tree.visits[0]) for tree in trees] == [501, 500]
    assert result.nodes == result.info["iterations"] == 1001
    first, count = int(trees[0].firsts[0]), int(trees[0].counts[0])
    kids = range(first, first + count)
    visits = [sum(int(tree.visits[c]) for tree in trees) for c in kids]
    best = max(range(count), key=visits.__getitem__)
    assert result.move == trees[0].turn(first + best) and result.info["visits"] == visits[best]
    me = state.to_move
    returns = sum(float(tree.sums[first + best, me]) for tree in trees)
    assert result.value == pytest.approx(returns / visits[best])
    alone = level.search(state, 5)
    alone.run(Limit(nodes=300))
    empty = level.search(state, 6)
    assert alone.result(0.0, [empty]).move == alone.result(0.0).move


def test_trees_side_by_side_stop_at_the_time_limit_and_on_a_stop_event() -> None:
    state = random_state(5, 6)
    level = ai.CompiledMctsLevel("test")
    started = time.perf_counter()
    result = level.play(state, Limit(time=0.3, threads=2), random.Random(1))
    assert time.perf_counter() - started < 0.6 and result.move in state.legal_moves()
    stop = threading.Event()
    threading.Timer(0.1, stop.set).start()
    reports: list = []
    started = time.perf_counter()
    answer = fastmcts.run_beside(
        level.searches(state, random.Random(2), 2), Limit(), stop=stop, on_info=reports.append
    )
    assert time.perf_counter() - started < 0.5 and reports == [answer]


def test_a_decided_root_is_not_searched_by_more_trees() -> None:
    """A winning turn or a player alone in its region: one tree, no thread."""
    level = ai.CompiledMctsLevel("test")
    for seed in range(40):
        state = GAME.new_state()
        rng = random.Random(seed)
        while not state.is_over():
            tree = level.search(state, 0)
            if tree.winning or tree.line is not None:
                assert len(level.searches(state, random.Random(0), 2)) == 1
                return
            state.push(rng.choice(state.legal_moves()))
    pytest.fail("no random game reached a decided root")
