"""The README is the front door: its quick start, examples and outputs must stay true."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, re.S)


def shell_examples() -> list[tuple[str, list[str]]]:
    """``$ slimetrail ...`` lines of the README with the output lines shown under them."""
    examples: list[tuple[str, list[str]]] = []
    for _, body in BLOCKS:
        in_example = False
        for line in body.splitlines():
            if line.startswith("$ "):
                examples.append((line[2:], []))
                in_example = True
            elif in_example and line.strip():
                examples[-1][1].append(line)
    return [(cmd, out) for cmd, out in examples if cmd.startswith("slimetrail ")]


def test_quick_start_is_two_commands_and_ci_runs_the_test_command() -> None:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    install, test = re.search(r"```\n(.*?)```", section, re.S).group(1).strip().splitlines()
    assert "pip install" in install and install.endswith("slimetrail serve")
    ci_lines = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln.strip()]
    assert ci_lines[-1] == test
    # CI installs as the quick start does (at least its extras), kernels compiled before the
    # suite.
    assert ("slimetrail compile" in install) == ("slimetrail compile" in ci_lines)
    ci_install = next(line for line in ci_lines if "pip install" in line)
    assert set(extras_of(install)) <= set(extras_of(ci_install)), (install, ci_install)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert set(extras_of(ci_install)) <= set(declared["optional-dependencies"])


def extras_of(command: str) -> list[str]:
    """The extras a ``pip install -e '.[a,b]'`` command names."""
    found = re.search(r"\.\[([\w,-]+)\]", command)
    assert found, command
    return found.group(1).split(",")


def test_python_example_prints_what_its_comments_say() -> None:
    code = next(body for lang, body in BLOCKS if lang == "python")
    # A comment after a print shows its output; words in brackets after it are remarks.
    expected = [
        line.split("  # ", 1)[1].split(" (", 1)[0]
        for line in code.splitlines()
        if line.startswith("print(") and "  # " in line
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == expected


@pytest.mark.parametrize("command, shown", shell_examples(), ids=lambda v: str(v)[:60])
def test_shell_example_runs_and_prints_what_is_shown(command: str, shown: list[str]) -> None:
    args = shlex.split(command, comments=True)
    paths = [a for a in args if "*" in a]
    for pattern in paths:  # expand globs as a shell would, relative to the repo
        index = args.index(pattern)
        args[index : index + 1] = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(pattern))
    run = subprocess.run(
        [sys.executable, "-m", "slimetrail", *args[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    position = 0
    for want in shown:
        if want.strip() == "...":
            continue
        # Shown lines appear in order; "..." stands for lines left out.
        found = [i for i in range(position, len(lines)) if lines[i].strip() == want.strip()]
        assert found, f"{command!r} did not print {want!r}:\n{run.stdout}"
        position = found[0] + 1


def test_the_rules_of_every_game_are_in_the_repository_and_linked() -> None:
    from slimetrail.core.registry import GAMES

    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    headings = [line for line in rules.splitlines() if line.startswith("## ")]
    built_in = [i for i, cls in GAMES.items() if cls.__module__.startswith("slimetrail.games.")]
    assert len(built_in) == 7
    for game_id in built_in:
        assert any(f"`{game_id}`" in heading for heading in headings), game_id
    assert "(docs/rules.md)" in README and "shared/RULES.md" not in README
