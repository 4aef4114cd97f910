"""Properties of every Slime Trail game, size and rule set, on random move sequences."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slimetrail.core.registry import get_game

GAMES = [
    get_game(game_id, size=size, rules=rules, start=start)
    for game_id, sizes in [
        ("slimetrail", (5, 7, 9)),
        ("slimetrail-square", (5, 6, 8)),
        ("slimetrail-hex", (4, 7, 8, 10, 11)),
    ]
    for size in sizes
    for rules in ("rastros", "taylor")
    for start in (None,)
] + [get_game("slimetrail", start="e5"), get_game("slimetrail-hex", size=8, start="b7")]


@st.composite
def positions(draw):
    """A game and a random line from its start (possibly to the end)."""
    game = draw(st.sampled_from(GAMES))
    state = game.new_state()
    for _ in range(draw(st.integers(0, game.size * game.size))):
        moves = state.legal_moves()
        if not moves:
            break
        state.push(moves[draw(st.integers(0, len(moves) - 1))])
    return state


def snapshot(state) -> tuple:
    return (
        state.fen(),
        state.key(),
        list(state.move_stack),
        state.legal_moves(),
        state.outcome(),
        state.to_move,
        state.free,
        state.snail,
    )


@settings(max_examples=150, deadline=None)
@given(positions())
def test_push_pop_round_trips(state):
    before = snapshot(state)
    for move in state.legal_moves():
        state.push(move)
        assert state.move_stack[-1] == move
        assert state.key() != before[1]
        assert state.pop() == move
        assert snapshot(state) == before
    # Unwinding the whole line passes through the same positions as playing it.
    line, seen = list(state.move_stack), []
    while state.move_stack:
        seen.append(snapshot(state))
        state.pop()
    assert state.fen() == state.game.new_state().fen()
    for move, expected in zip(line, reversed(seen), strict=True):
        state.push(move)
        assert snapshot(state) == expected


@settings(max_examples=150, deadline=None)
@given(positions())
def test_fen_round_trips_and_key_matches_a_fresh_build(state):
    fresh = state.game.state_from_fen(state.fen())
    assert fresh == state and fresh.fen() == state.fen()
    # The incrementally updated zobrist key equals the key computed from scratch.
    assert fresh.key() == state.key() and hash(fresh) == hash(state)
    assert fresh.legal_moves() == state.legal_moves()
    assert fresh.outcome() == state.outcome()
    assert fresh.to_move == state.to_move
    assert fresh.move_stack == []


@settings(max_examples=100, deadline=None)
@given(positions())
def test_keys_along_a_line_are_distinct_and_match_fresh_builds(state):
    # Every ply slimes one more cell, so the positions of a line all differ: so must keys.
    keys = set()
    work = state.game.new_state()
    for move in [*state.move_stack, None]:
        assert work.key() == state.game.state_from_fen(work.fen()).key()
        keys.add(work.key())
        if move is not None:
            work.push(move)
    assert len(keys) == len(state.move_stack) + 1
    assert all(0 <= key < 2**64 for key in keys)


@settings(max_examples=100, deadline=None)
@given(positions())
def test_moves_print_and_parse_back(state):
    for move in state.legal_moves():
        assert state.parse_move(state.move_str(move)) == move
    assert state.legal_move_strs() == [state.move_str(m) for m in state.legal_moves()]
    assert state.next_clicks() == {text: text for text in state.legal_move_strs()}
    replay = state.game.new_state()
    for move in state.move_stack:
        replay.push_str(replay.move_str(move))
    assert replay.fen() == state.fen() and replay.key() == state.key()


@settings(max_examples=100, deadline=None)
@given(positions())
def test_copies_are_independent(state):
    before = snapshot(state)
    clone = state.copy()
    assert snapshot(clone) == before
    for move in clone.legal_moves()[:1]:
        clone.push(move)
        assert snapshot(state) == before
    if state.move_stack:
        state.copy().pop()
        assert snapshot(state) == before


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.replace(" ", "-"))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_playouts_end_with_a_consistent_outcome(game, data):
    state = game.new_state()
    cells = game.size * game.size
    while state.outcome() is None:
        moves = state.legal_moves()
        assert moves, "a game with no legal move must be over"
        mover = state.to_move
        state.push(data.draw(st.sampled_from(moves)))
        assert state.to_move == 3 - mover
        assert len(state.move_stack) < cells
    outcome = state.outcome()
    assert state.legal_moves() == []
    if outcome.reason == "goal":
        assert state.snail in game.goals[1:]
        assert outcome.winner == (1 if state.snail == game.goals[1] else 2)
    else:
        assert outcome.reason == "stuck"
        # Under Taylor's restriction a game from the start never gets stuck.
        assert game.rules == "rastros"
        assert outcome.winner == 3 - state.to_move
        assert not game.board.neighbours[state.snail] & state.free
