"""The ``slimetrail`` entry point: every subcommand is there, a missing one is an error, and a
subcommand that needs an optional dependency set names the extra to install."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from slimetrail.cli import main as cli

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_every_command_module_is_a_subcommand(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--help"])
    listed = capsys.readouterr().out
    for name in cli.COMMANDS:
        command = name.replace("_", "-")  # bot_token is the module of bot-token
        assert re.search(rf"^\s+{command}\s", listed, re.M), name


def test_a_named_command_loads_only_its_own_module() -> None:
    # A solve from the shell must not pay for the server, the bot client or asyncio.
    code = (
        "import sys; from slimetrail.cli.main import build_parser; "
        "parser = build_parser(['solve', '--json', 'c3']); "
        "print(sorted(m for m in sys.modules if m.startswith('slimetrail.cli.')), "
        "'asyncio' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['slimetrail.cli.main',", "'slimetrail.cli.solve']", "False"]


@pytest.mark.parametrize("argv", [["nosuch"], ["--help"]])
def test_without_a_known_command_every_command_is_offered(argv, capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(argv)
    shown = capsys.readouterr()
    for name in cli.COMMANDS:
        assert name.replace("_", "-") in shown.out + shown.err, name


def test_a_missing_command_module_is_an_error(monkeypatch) -> None:
    monkeypatch.setattr(cli, "COMMANDS", (*cli.COMMANDS, "nosuch"))
    with pytest.raises(ModuleNotFoundError, match=r"slimetrail\.cli\.nosuch"):
        cli.build_parser()


def test_the_web_modules_are_the_web_extra() -> None:
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    names = tuple(re.match(r"[A-Za-z0-9_-]+", spec).group(0).lower() for spec in extras["web"])
    assert names == cli.EXTRA_MODULES["web"]


@pytest.mark.parametrize("command", [["serve"], ["expire", "--dry-run"], ["worker"]])
def test_web_commands_without_the_web_extra_say_which_extra_to_install(
    command, monkeypatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)  # as if it were not installed
    assert cli.main([*command, "--db", "postgresql://nobody@nowhere/none"]) == 2
    err = capsys.readouterr().err
    assert f"slimetrail {command[0]} needs the web extra (fastapi not installed)" in err
    assert "pip install 'slimetrail[web]'" in err
