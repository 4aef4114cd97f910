"""Game options on the command line come from the games' declarations; perft for any game."""

from __future__ import annotations

import argparse
from typing import ClassVar

import pytest
from clitools import run_cli

from slimetrail.cli.main import build_parser, main
from slimetrail.core.game import OptionSpec
from slimetrail.core.perft import perft_generic
from slimetrail.core.registry import GAMES, get_game, register

COMMANDS_WITH_GAMES = ("play", "perft", "ugi", "solve")


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._subparsers._group_actions:  # argparse keeps them here
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError("no subcommands")


@pytest.fixture
def game_with_twist():
    """A toy-three variant declaring an option no other game has."""
    base = type(get_game("toy-three"))

    class WithTwist(base):  # type: ignore[misc, valid-type]
        id = "toy-three-twist"
        option_specs: ClassVar = (OptionSpec("twist", "4", ("4", "5"), "how far the toy twists"),)

    register(WithTwist)
    yield WithTwist
    GAMES.unregister(WithTwist.id)


def test_every_declared_option_is_a_flag_with_its_help(game_with_twist):
    parser = build_parser()
    declared = [(cls.id, spec) for cls in GAMES.values() for spec in cls.option_specs]
    assert {"size", "rules", "start", "twist"} <= {spec.name for _, spec in declared}
    for command in COMMANDS_WITH_GAMES:
        actions = {a.dest: a for a in subparser(parser, command)._actions}
        for game_id, spec in declared:
            action = actions[f"game_option_{spec.name}"]
            assert action.option_strings == [f"--{spec.name}"]
            assert f"{spec.help} [" in action.help and game_id in action.help
        assert actions["game_option_twist"].help == "how far the toy twists [toy-three-twist]"
        assert "--option" in actions["option"].option_strings


def test_options_reach_the_chosen_game(game_with_twist, capsys):
    assert main(["perft", "--game", "toy-three-twist", "--twist", "5", "--depth", "1"]) == 0
    assert capsys.readouterr().out.strip().endswith("Nodes searched: 12")
    assert main(["perft", "--game", "toy-three-twist", "--option", "twist=5", "--depth", "1"]) == 0
    capsys.readouterr()
    assert main(["perft", "--game", "toy-three-twist", "--twist", "6", "--depth", "1"]) == 2
    assert "toy-three-twist: option twist='6' is not one of 4, 5" in capsys.readouterr().err
    # An option of another game is a clear error for this one.
    assert main(["perft", "--game", "toy-three", "--size", "9", "--depth", "1"]) == 2
    assert "toy-three: unknown option 'size' (options: none)" in capsys.readouterr().err
    assert main(["perft", "--game", "slimetrail", "--twist", "4", "--depth", "1"]) == 2
    assert (
        "slimetrail: unknown option 'twist' (options: size, rules, start)"
        in capsys.readouterr().err
    )
    assert main(["perft", "--option", "size", "--depth", "1"]) == 2
    assert "--option 'size': expected NAME=VALUE" in capsys.readouterr().err
    # A superscript digit is a digit to str.isdigit() but not to int(): still a clear error.
    assert main(["perft", "--start", "a\u00b2", "--depth", "1"]) == 2
    assert "start='a\u00b2' is not a cell" in capsys.readouterr().err
    assert main(["perft", "--option", "size=9", "--depth", "1"]) == 0
    assert capsys.readouterr().out.strip().endswith("Nodes searched: 8")


@pytest.mark.parametrize(("game_id", "moves"), [("toy-three", []), ("toy-pie", ["a1"])])
def test_perft_works_for_every_game(game_id, moves, capsys):
    state = get_game(game_id).new_state()
    for text in moves:
        state.push_str(text)
    assert main(["perft", "--game", game_id, "--depth", "2", *moves]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(f"Nodes searched: {perft_generic(state, 2)}")
    if game_id == "toy-pie":
        assert "swap: " in out  # the pie swap is counted like any move


def test_the_toy_games_are_known_to_a_subprocess():
    proc = run_cli("perft", "--game", "toy-three", "--depth", "1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("Nodes searched: 12")


def test_the_flags_follow_the_registry(game_with_twist):
    def perft_flags() -> set[str]:
        return {a.dest for a in subparser(build_parser(), "perft")._actions}

    assert "game_option_twist" in perft_flags()
    GAMES.unregister(game_with_twist.id)
    assert "game_option_twist" not in perft_flags()  # no game declares twist any more
    assert "game_option_size" in perft_flags()
