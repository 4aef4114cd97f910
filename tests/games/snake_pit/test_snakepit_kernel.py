"""The compiled kernel against the Python rules and the independent model.

Turn lists must equal the rules' exactly (same order), the existence check must agree with
the rules' count, a compiled playout's recorded turns must replay as legal turns of the
model and end where the kernel says, with the same places, and the evaluation's sharing out
of the board must match a set-based model of it.
"""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest
from snakepit_model import NEIGHBOURS, Position, from_fen, parse, turn_text

from slimetrail.games.snakepit import board, kernel
from slimetrail.games.snakepit.game import SnakePitGame, SnakePitState, count_turns, turns

GAME = SnakePitGame()


def random_positions(seed: int, count: int) -> list[SnakePitState]:
    """Positions met along random games, from the start to the end."""
    rng = random.Random(seed)
    found: list[SnakePitState] = []
    while len(found) < count:
        state = GAME.new_state()
        while not state.is_over() and len(found) < count:
            found.append(state.copy())
            state.push(rng.choice(state.legal_moves()))
        found.append(state.copy())
    return found


def kernel_turns(state: SnakePitState, player: int, k: int) -> list[tuple]:
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    buf = np.empty((kernel.MAX_TURNS, 3, 2), np.int64)
    n = kernel.gen_turns(heads[player], empty, k, kernel.NBR, buf)
    return [tuple((int(a), int(b)) for a, b in buf[t, :k]) for t in range(n)]


@pytest.mark.parametrize("seed", range(3))
def test_kernel_turns_are_the_rules_turns_in_the_same_order(seed: int) -> None:
    for state in random_positions(seed, 60):
        for player in (1, 2, 3):
            for k in (1, 2, 3):
                expected = turns(state.heads[player], state.empty, k)
                assert kernel_turns(state, player, k) == expected
                heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
                has = kernel.has_turn(heads[player], empty, k, kernel.NBR)
                assert has == (count_turns(state.heads[player], state.empty, k) > 0)


def test_kernel_puts_out_a_player_with_two_snakes_walled_in() -> None:
    # Blue's trail walls in Green's b9 (a8 b8 c9 c10) and b1 (a1 b2 c1 c2); Red's f7 makes the
    # blocked cells a multiple of three, as the turns of three leave them.
    fen = "b1,b9,l5,l13/- a2,e12,i2,m12/a1,a8,b2,b8,c1,c2,c9,c10 a7,g13,g1,m7/f7 3 3 -"
    state = GAME.state_from_fen(fen)
    heads, empty, out = kernel.arrays(state.heads, state.empty, state.out)
    assert not kernel.has_turn(heads[1], empty, 3, kernel.NBR)
    assert kernel.has_turn(heads[1], empty, 2, kernel.NBR)
    # After Red's turn Green is out and Blue moves; the rules agree.
    assert kernel.advance(heads, empty, 3, 3, out, 0, kernel.NBR) == (2, 1)
    assert list(out) == [1, 0]
    state.push(state.legal_moves()[0])
    assert state.out == [1] and state.to_move == 2


def replay(model: Position, record: np.ndarray, plies: int) -> Position:
    """The model after the kernel's recorded turns, each checked legal by the model."""
    for ply in range(plies):
        steps = [(int(a), int(b)) for a, b in record[ply] if a >= 0]
        turn = frozenset((parse(board.name(a)), parse(board.name(b))) for a, b in steps)
        assert turn in model.turns(), f"ply {ply}: {turn_text(turn)} is not legal"
        model = model.after(turn)
    return model


@pytest.mark.parametrize("seed", range(8))
def test_compiled_playouts_replay_as_legal_games_of_the_model(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state()
    for _ in range(rng.randrange(0, 12)):  # start some playouts in mid-game
        state.push(rng.choice(state.legal_moves()))
    fen = state.fen()
    out, record, plies = kernel.play_out(
        state.heads, state.empty, state.mover, state.k, state.out, rng.getrandbits(63)
    )
    assert state.fen() == fen  # the kernel works on copies
    model = replay(from_fen(fen), record, plies)
    assert model.mover is None, "the kernel stopped before the end"
    assert list(model.out) == out
    outcome = state.playout(random.Random(seed))
    assert state.fen() == fen and sorted(outcome.places) == [1, 2, 3]


def test_playouts_are_deterministic_for_a_seed_and_vary_between_seeds() -> None:
    state = GAME.new_state()
    first = [state.playout(random.Random(s)).places for s in range(30)]
    again = [state.playout(random.Random(s)).places for s in range(30)]
    assert first == again
    assert len(set(first)) >= 3  # every seat wins some random games


def test_playout_of_a_finished_game_is_its_outcome() -> None:
    rng = random.Random(5)
    state = GAME.new_state()
    while not state.is_over():
        state.push(rng.choice(state.legal_moves()))
    assert state.playout(rng) == state.outcome()


def test_playout_outcomes_agree_with_the_python_walk_in_distribution() -> None:
    """Both walks pick uniformly among the legal turns: the seats' win counts over many
    games must be alike (a loose check that the kernel plays the same random game)."""
    from slimetrail.core.game import State

    state = GAME.new_state()
    rng = random.Random(11)
    n = 300
    fast = [state.playout(rng).winner for _ in range(n)]
    slow = [State.playout(state, rng).winner for _ in range(n // 3)]
    for p in (1, 2, 3):
        assert abs(fast.count(p) / n - slow.count(p) / (n // 3)) < 0.2


def model_rooms(state: SnakePitState) -> dict[int, int]:
    """Each player's share of the board, written from the evaluation's definition with
    sets and rounds: every round each player claims the empty unclaimed cells next to the
    cells it claimed the round before; a cell two players claim in the same round is
    nobody's and is no base for further claims."""
    marks = state.view()["marks"]
    taken = {parse(c) for c in marks}
    alive = [p for p in (1, 2, 3) if p not in state.out]
    front = {p: {parse(c) for c, m in marks.items() if f"head-{p}" in m} for p in alive}
    claimed: set = set()
    counts = dict.fromkeys(alive, 0)
    while any(front.values()):
        wanted = {p: {n for c in front[p] for n in NEIGHBOURS[c]} - taken - claimed for p in alive}
        contested = {c for p in alive for q in alive if p < q for c in wanted[p] & wanted[q]}
        for p in alive:
            front[p] = wanted[p] - contested
            counts[p] += len(front[p])
        claimed |= contested | {c for p in alive for c in wanted[p]}
    return counts


def test_snake_rooms_share_the_board_as_simultaneous_claims() -> None:
    positions = random_positions(3, 150)
    assert any(s.out for s in positions)
    for state in positions:
        heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
        alive = np.array([False] + [p not in state.out for p in (1, 2, 3)])
        rooms = np.zeros((4, 4), np.int64)
        kernel.snake_rooms(heads, empty, alive, kernel.NBR, rooms)
        expected = model_rooms(state)
        assert {p: int(rooms[p].sum()) for p in expected} == expected
        assert all(rooms[p].sum() == 0 for p in (1, 2, 3) if p not in expected)


def test_a_playout_stopped_at_once_ranks_by_the_evaluation() -> None:
    # Green walled in on two snakes (see above) and to move next after Red: worst of all.
    fen = "b1,b9,l5,l13/- a2,e12,i2,m12/a1,a8,b2,b8,c1,c2,c9,c10 a7,g13,g1,m7/f7 2 3 -"
    state = GAME.state_from_fen(fen)
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    values = np.zeros(4)
    kernel.evaluate(heads, empty, np.array([False, True, True, True]), kernel.NBR, values)
    state.playout_turns = 0
    outcome = state.playout(random.Random(1))
    expected = sorted((1, 2, 3), key=lambda p: -values[p])
    assert [p for _, p in sorted((place, p) for p, place in enumerate(outcome.places, 1))] == (
        expected
    )
    assert outcome.place(1) == 3
    # A few turns on: Green goes out on its turn, and is last whatever the others' room.
    state.playout_turns, state.playout_tries = 3, 2
    before = state.fen()
    for seed in range(5):
        assert state.playout(random.Random(seed)).place(1) == 3
    assert state.fen() == before


@pytest.mark.parametrize("seed", range(3))
def test_counted_turns_are_the_listed_turns_in_the_same_order(seed: int) -> None:
    """The rollouts' draw by number (count_turns, nth_turn) against gen_turns' whole list,
    for every player and turn size in positions from the start to the end of games."""
    buf = np.empty((kernel.MAX_TURNS, 3, 2), np.int64)
    exits, sizes, counts = np.empty((4, 6), np.int64), np.empty(4, np.int64), np.empty(6, np.int64)
    drawn = np.empty((1, 3, 2), np.int64)
    for state in random_positions(seed, 60):
        heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
        for player in (1, 2, 3):
            for k in (1, 2, 3):
                n = kernel.gen_turns(heads[player], empty, k, kernel.NBR, buf)
                snakes = heads[player]
                assert (
                    kernel.count_turns(
                        snakes, empty, k, kernel.NBR, kernel.ADJ, exits, sizes, counts
                    )
                    == n
                )
                for t in range(n):
                    kernel.nth_turn(snakes, k, kernel.ADJ, exits, sizes, counts, t, drawn, 0)
                    assert (drawn[0, :k] == buf[t, :k]).all() and (drawn[0, k:] == -1).all()


@pytest.mark.parametrize("seed", range(3))
def test_the_fast_rollout_plays_the_reference_rollouts_turns(seed: int) -> None:
    """fast_rollout against rollout (which lists every turn): the same turns for a seed,
    so the same final position, players out and values, for short rollouts and to the end."""
    for number, state in enumerate(random_positions(seed, 25)):
        if state.is_over():
            continue
        for span in (3, kernel.MAX_PLIES):
            ends = []
            for fast in (True, False):
                heads, empty, out = kernel.arrays(state.heads, state.empty, state.out)
                values = np.zeros(4)
                args = (heads, empty, state.to_move, state.k, out, len(state.out), kernel.NBR)
                play_seed, tries = 1000 * seed + number, 3
                if fast:
                    n_out = kernel.fast_rollout(*args, kernel.ADJ, play_seed, tries, span, values)
                else:
                    n_out = kernel.rollout(*args, play_seed, tries, span, values)
                ends.append((heads.tolist(), empty.tolist(), out.tolist(), n_out, list(values)))
            assert ends[0] == ends[1]


def test_quick_turns_are_the_exits_favourites_in_a_stable_order() -> None:
    """quick_best_turns (turns scored as they are listed, a counting sort) against the
    plain definition: every turn scored by exits_score, sorted best first, ties in the
    rules' order."""
    buf = np.empty((kernel.MAX_TURNS, 3, 2), np.int64)
    for state in random_positions(4, 40):
        heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
        for player in (1, 2, 3):
            for k in (1, 2, 3):
                n = kernel.gen_turns(heads[player], empty, k, kernel.NBR, buf)
                ranked = sorted(
                    range(n),
                    key=lambda t: -kernel.exits_score(heads, empty, player, buf, t, k, kernel.NBR),
                )
                expected = [buf[t, :k].tolist() for t in ranked]
                for width in (16, kernel.MAX_TURNS):
                    chosen = np.empty((width, 3, 2), np.int64)
                    m = kernel.quick_best_turns(heads, empty, player, k, kernel.NBR, width, chosen)
                    assert [chosen[i, :k].tolist() for i in range(m)] == expected[:width]


def most_turns(snakes: tuple[int, ...], empty: frozenset[int], k: int) -> int:
    """Brute force with the rules' definition of a turn: ``k`` of the four snakes (3 after
    the first turn), each one step to an empty neighbour, no two to one cell."""

    @functools.cache
    def walk(snakes: tuple[int, ...], empty: frozenset[int], k: int) -> int:
        best = 0
        for moving in itertools.combinations(snakes, k):
            options = [[c for c in empty if board.NEIGHBOURS[s] >> c & 1] for s in moving]
            for dests in itertools.product(*options):
                if len(set(dests)) == k:
                    after = tuple(sorted(set(snakes) - set(moving) | set(dests)))
                    best = max(best, 1 + walk(after, empty - set(dests), 3))
        return best

    return walk(tuple(sorted(snakes)), empty, k)


def walled_region(seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A position's snakes with only a few random cells near the mover's snakes left
    empty: (heads, empty, mover)."""
    rng = random.Random(seed)
    state = random_positions(seed, 6)[-1]
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    mover = state.to_move or 1
    kept: set[int] = set()
    for snake in heads[mover]:
        front, grown, wanted = [int(snake)], 0, rng.randrange(2, 4)
        while front and grown < wanted:
            cell = front.pop(rng.randrange(len(front)))
            for near in kernel.NBR[cell]:
                if near >= 0 and empty[near] and int(near) not in kept and grown < wanted:
                    kept.add(int(near))
                    front.append(int(near))
                    grown += 1
    walled = np.zeros_like(empty)
    walled[sorted(kept)] = True
    return heads, walled, mover


@pytest.mark.parametrize("seed", range(10))
def test_the_longest_line_is_the_brute_forces_and_starts_it(seed: int) -> None:
    heads, empty, mover = walled_region(seed)
    alone = np.zeros(4, np.bool_)
    alone[mover] = True
    cells = kernel.region_apart(heads, empty, alone, mover, kernel.NBR)
    assert cells == int(empty.sum())  # every kept cell is next to a snake or a kept cell
    first = np.empty((3, 2), np.int64)
    free = frozenset(int(c) for c in np.nonzero(empty)[0])
    snakes = tuple(int(c) for c in heads[mover])
    best = kernel.longest_line(heads[mover], empty, 3, cells, kernel.NBR, 10**7, first)
    assert best == most_turns(snakes, free, 3)
    if best:  # the first turn given starts a line of that length
        after = tuple(sorted(set(snakes) - set(first[:, 0].tolist()) | set(first[:, 1].tolist())))
        assert 1 + most_turns(after, free - set(first[:, 1].tolist()), 3) == best
    assert kernel.longest_line(heads[mover], empty, 3, cells, kernel.NBR, 0, first) in (-1, 0)


def test_a_region_another_player_can_reach_is_not_apart() -> None:
    state = random_positions(2, 8)[-1]
    heads, empty, _ = kernel.arrays(state.heads, state.empty, state.out)
    everyone = np.array([False, True, True, True])
    assert kernel.region_apart(heads, empty, everyone, state.to_move, kernel.NBR) == -1
    lonely = np.zeros(4, np.bool_)
    lonely[state.to_move] = True
    assert kernel.region_apart(heads, empty, lonely, state.to_move, kernel.NBR) > 0
