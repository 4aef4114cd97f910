"""The contract kit: every registered game (built-in and the test toys) against the game
interface, in the spirit of OpenSpiel's games_sim_test.

Per game and per declared preset: random playouts always end with an outcome for every
player; push/pop restores position, key and move list; position strings round-trip; every
legal move's text parses back to it; clicks lead to exactly the legal moves; keys are the same
in a fresh process; the game's perft agrees with the generic walk; bad input is refused with
a GameError and changes nothing.  Each built-in game must also have its independent model of
the rules under ``tests/games/<game id>/``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from slimetrail.core.game import (
    Game,
    GameError,
    IllegalMoveError,
    InvalidPositionError,
    Outcome,
    State,
)
from slimetrail.core.perft import perft, perft_generic
from slimetrail.core.registry import GAMES, get_game
from slimetrail.games import GAME_PACKAGES

TESTS = Path(__file__).resolve().parents[1]
PLAYOUTS = 6
MAX_PLIES = 3000  # far beyond any registered game's longest game


def variants() -> list[tuple[str, dict[str, str]]]:
    found = []
    for game_id, cls in GAMES.items():
        found.append((game_id, {}))
        for options in cls.presets.values():
            found.append((game_id, dict(options)))
    return found


VARIANTS = variants()
IDS = [" ".join([gid, *(f"{k}={v}" for k, v in opts.items())]) for gid, opts in VARIANTS]


@pytest.fixture(params=VARIANTS, ids=IDS)
def game(request: pytest.FixtureRequest) -> Game:
    game_id, options = request.param
    return get_game(game_id, **options)


def playout(state: State, rng: random.Random, plies: int = MAX_PLIES) -> list[State]:
    """Random moves to the end (at most ``plies``); the copies of every position passed."""
    seen = []
    for _ in range(plies):
        if state.outcome() is not None:
            break
        seen.append(state.copy())
        state.push(rng.choice(state.legal_moves()))
    return seen


def test_declarations_are_consistent(game: Game) -> None:
    cls = type(game)
    assert cls.num_players >= 1
    assert len(cls.player_names) == cls.num_players
    assert len(cls.player_colours) == cls.num_players
    assert cls.turn.max_clicks >= 1
    for spec in cls.option_specs:
        # The text form reads back as the typed default (records and links carry text).
        assert spec.value(spec.default_text, cls.id) == spec.default
        assert spec.default in spec.allowed() or not spec.allowed()
        assert type(game.options[spec.name]) is spec.kind
    state = game.new_state()
    assert len(state.colours()) == cls.num_players
    cells = [cell["name"] for cell in game.describe_board()["cells"]]
    assert len(cells) == len(set(cells))
    assert not set(cls.turn.actions) & set(cells)


def test_random_playouts_end_with_every_players_result(game: Game) -> None:
    for seed in range(PLAYOUTS):
        state = game.new_state()
        playout(state, random.Random(seed))
        outcome = state.outcome()
        assert isinstance(outcome, Outcome), f"no end after {MAX_PLIES} plies"
        assert outcome.num_players == game.num_players
        assert state.legal_moves() == []
        returns = outcome.returns()
        assert all(0.0 <= r <= 1.0 for r in returns)
        if game.zero_sum:
            assert sum(returns) == pytest.approx(game.num_players / 2)


def test_push_pop_and_position_strings_round_trip(game: Game) -> None:
    for seed in range(PLAYOUTS):
        state = game.new_state()
        before = playout(state, random.Random(100 + seed))
        for old in reversed(before):
            state.pop()
            assert state.fen() == old.fen()
            assert state.key() == old.key()
            assert state.legal_move_strs() == old.legal_move_strs()
            assert state.to_move == old.to_move
        assert state.move_stack == []
        for old in before:
            again = game.state_from_fen(old.fen())
            assert again == old and again.fen() == old.fen() and again.key() == old.key()
            assert again.to_move == old.to_move
            assert again.legal_move_strs() == old.legal_move_strs()
            assert again.colours() == old.colours()


def test_move_texts_parse_back(game: Game) -> None:
    state = game.new_state()
    for old in playout(state, random.Random(7)):
        moves = old.legal_moves()
        texts = [old.move_str(m) for m in moves]
        assert len(set(texts)) == len(texts), "two legal moves share a text"
        for move, text in zip(moves[:300], texts, strict=False):
            assert old.parse_move(text) == move
            assert old.parse_move(f"  {text.upper()} ") == move


def walk_clicks(state: State, path: list[str]) -> str | None:
    """Follow ``path`` through next_clicks; the move text it completes, None before."""
    for depth, click in enumerate(path):
        options = state.next_clicks(path[:depth])
        assert click in options, f"{click!r} not offered after {path[:depth]}"
        done = options[click]
        if depth < len(path) - 1:
            assert done is None, f"{path[: depth + 1]} completes {done!r} but {path} goes on"
        else:
            return done
    return None


def test_clicks_lead_to_exactly_the_legal_moves(game: Game) -> None:
    state = game.new_state()
    rng = random.Random(11)
    for old in playout(state, rng)[:40]:
        moves = old.legal_moves()
        for move in rng.sample(moves, min(len(moves), 60)):
            path = old.click_path(move)
            assert 1 <= len(path) <= game.turn.max_clicks
            assert walk_clicks(old, path) == old.move_str(move)
        # Every first click is the start of some legal move, and a complete one is legal.
        legal = set(old.legal_move_strs())
        for click, done in old.next_clicks().items():
            assert done is None or done in legal, f"{click} completes {done}, not legal"
        with pytest.raises(IllegalMoveError):
            old.next_clicks(["no-such-click"])


def test_views_and_text_boards_name_real_cells(game: Game) -> None:
    cells = {cell["name"] for cell in game.describe_board()["cells"]}
    state = game.new_state()
    for old in [*playout(state, random.Random(3)), state]:
        view = old.view()
        assert set(view["marks"]) <= cells
        assert all(isinstance(marks, list) for marks in view["marks"].values())
        assert set(view.get("path", [])) <= cells and set(view.get("last", [])) <= cells
        text = old.text_board()
        assert isinstance(text, str) and text.strip()


def test_perft_agrees_with_the_generic_walk(game: Game) -> None:
    state = game.new_state()
    positions = playout(state, random.Random(5))
    for old in [game.new_state(), *positions[1 : len(positions) : max(1, len(positions) // 4)]]:
        for depth in (1, 2):
            assert perft(old, depth) == perft_generic(old, depth)


def test_bad_input_is_refused_and_changes_nothing(game: Game) -> None:
    state = game.new_state()
    playout(state, random.Random(9), plies=3)
    fen, key = state.fen(), state.key()
    # "a²" and "c٣": characters that pass str.isdigit() but are no decimal digits for int().
    for text in ("", "zz99", "a1-", "!!", "swap swap", "\ud800", "a\u00b2", "c\u0663"):
        with pytest.raises(GameError):
            state.parse_move(text)
    for move in (object(), -1, None, ("bogus",), 10**9):
        with pytest.raises(IllegalMoveError):
            state.push(move)
    assert (state.fen(), state.key()) == (fen, key)
    for fen_text in ("", "garbage", fen + " extra junk", fen.replace(" ", "/", 1)):
        with pytest.raises(InvalidPositionError):
            game.state_from_fen(fen_text)


def playout_keys(variants: list[tuple[str, dict[str, str]]]) -> dict[str, list[int]]:
    """The keys along a seeded random playout of each variant."""
    out = {}
    for game_id, options in variants:
        state, rng = get_game(game_id, **options).new_state(), random.Random(1)
        keys = [state.key()]
        for _ in range(20):
            if state.outcome() is not None:
                break
            state.push(rng.choice(state.legal_moves()))
            keys.append(state.key())
        out[game_id + repr(sorted(options.items()))] = keys
    return out


KEY_SCRIPT = """
import json, sys
sys.path[:0] = sys.argv[1:3]
import toygames  # noqa: F401
from test_contract import playout_keys
print(json.dumps(playout_keys([tuple(v) for v in json.loads(sys.argv[3])])))
"""


def test_keys_are_the_same_in_a_fresh_process() -> None:
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    here = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, "-c", KEY_SCRIPT, str(TESTS), here, json.dumps(VARIANTS)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(done.stdout) == playout_keys(VARIANTS)


def test_core_loads_no_game() -> None:
    code = (
        "import sys, slimetrail.core, slimetrail.core.game, slimetrail.core.registry, "
        "slimetrail.core.records, slimetrail.core.perft; "
        "print([m for m in sys.modules if m.startswith('slimetrail.games')])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_built_in_game_has_an_independent_model() -> None:
    built_in = [cls for cls in GAMES.values() if cls.__module__.startswith(tuple(GAME_PACKAGES))]
    assert built_in
    for cls in built_in:
        names = {cls.id, cls.id.replace("-", "_"), cls.__module__.split(".")[2]}
        folders = [TESTS / "games" / name for name in names if (TESTS / "games" / name).is_dir()]
        assert folders, f"{cls.id}: no tests/games/ folder"
        assert any(folder.glob("*model*.py") for folder in folders), f"{cls.id}: no model"
