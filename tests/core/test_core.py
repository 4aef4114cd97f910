"""The core alone: outcomes for any number of players, the registry and its plugins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slimetrail.core.game import GameOptionError, Outcome
from slimetrail.core.registry import GAMES, get_game, parse_game_spec

TESTS = Path(__file__).resolve().parents[1]


def test_two_player_outcomes() -> None:
    win = Outcome.win(2, reason="goal")
    assert win.places == (2, 1) and win.winner == 2 and not win.is_draw
    assert [win.for_player(p) for p in (1, 2)] == ["loss", "win"]
    assert win.returns() == (0.0, 1.0) and win.result_text() == "0-1"
    draw = Outcome.draw()
    assert draw.winner is None and draw.is_draw and draw.returns() == (0.5, 0.5)
    assert draw.for_player(1) == "draw" and draw.result_text() == "1/2-1/2"


def test_rankings_of_three_players() -> None:
    ranked = Outcome.ranking([3, 1, 2], reason="last player left")
    assert ranked.places == (2, 3, 1) and ranked.winner == 3
    assert ranked.returns() == (0.5, 0.0, 1.0)
    assert ranked.result_text() == "0-0-1"
    assert [ranked.for_player(p) for p in (1, 2, 3)] == ["loss", "loss", "win"]
    shared = Outcome.ranking([[1, 3], 2])
    assert shared.places == (1, 3, 1) and shared.winner is None and not shared.is_draw
    assert shared.returns() == (0.75, 0.0, 0.75)
    assert shared.result_text() == "1/2-0-1/2" and shared.for_player(1) == "draw"
    tail_tie = Outcome.ranking([2, [1, 3]])
    assert tail_tie.places == (2, 1, 2) and tail_tie.returns() == (0.25, 1.0, 0.25)


@pytest.mark.parametrize("order", [[1, 1, 2], [1, 3], [[1, 2], 2, 3], []])
def test_a_ranking_names_every_player_once(order: list) -> None:
    with pytest.raises(ValueError):
        Outcome.ranking(order)


@pytest.mark.parametrize("name", ["self", "game_id", "cls", "options"])
def test_options_of_any_name_are_only_options(name: str) -> None:
    with pytest.raises(GameOptionError, match=f"unknown option '{name}'"):
        get_game("slimetrail", **{name: "1"})
    with pytest.raises(GameOptionError, match=f"unknown option '{name}'"):
        parse_game_spec(f"slimetrail {name}=1")


def test_unknown_games_and_values_are_named() -> None:
    with pytest.raises(GameOptionError, match="unknown game 'chess'"):
        get_game("chess")
    with pytest.raises(GameOptionError, match="size='99' is not one of"):
        get_game("slimetrail", size=99)


def test_plugin_games_come_from_the_environment() -> None:
    code = "from slimetrail.core.registry import GAMES; print(' '.join(GAMES))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    plain = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert "toy-three" not in plain.stdout.split()
    env["SLIMETRAIL_GAMES"] = "toygames"
    plugged = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    ids = plugged.stdout.split()
    assert ids[: len(ids) - 3] == [gid for gid in GAMES if not gid.startswith("toy-")]
    assert ids[-3:] == ["toy-three", "toy-pie", "toy-flags"]


def test_a_game_id_is_registered_once() -> None:
    from toygames import ToyThreeGame

    class Impostor(ToyThreeGame):
        pass

    with pytest.raises(ValueError, match="registered already"):
        GAMES.register(Impostor)
