"""The Slither rules pages render with the diagram helper, and what their captions claim about
legal and illegal turns is what the engine says."""

from __future__ import annotations

import re

import pytest

from slimetrail.core.game import IllegalMoveError
from slimetrail.core.registry import GAMES, parse_game_spec
from slimetrail.web.routes.pages import render_fragment, rules_fragment


@pytest.mark.parametrize("game_id", ["slither", "slither-advanced"])
def test_rules_page_renders_its_diagrams(game_id):
    source = rules_fragment(GAMES[game_id])
    assert source is not None and "<svg" not in source
    html = render_fragment(source)
    assert f"<h1>{GAMES[game_id].title}</h1>" in html
    assert "Choices this site makes" in html
    diagrams = re.findall(r'data-game="([^"]+)" data-fen="([^"]+)"', html)
    assert len(diagrams) == source.count("{{ diagram(") >= 3
    for spec, fen in diagrams:
        assert parse_game_spec(spec).state_from_fen(fen).fen() == fen


def after(spec: str, moves: str):
    state = parse_game_spec(spec).new_state()
    for word in moves.split():
        state.push_str(word)
    return state


@pytest.mark.parametrize(
    ("spec", "moves", "legal", "illegal"),
    [
        ("slither size=5", "c3 a5", ["d3"], ["d4", "b2", "b4", "d2"]),
        ("slither size=5", "c3 a5 d3 a4 d4 a3", ["d3-e2/c4"], ["d3-e2/a1"]),
        ("slither-advanced size=5", "b2 c2 d4 a5", ["b2-b1/e1"], ["d4-d5/e1"]),
        ("slither-advanced size=5", "b2 c2 b3 a5", ["b2-a1/e5", "b3-a4/e5"], []),
    ],
)
def test_caption_claims_hold(spec, moves, legal, illegal):
    state = after(spec, moves)
    for text in legal:
        state.parse_move(text)
    for text in illegal:
        with pytest.raises(IllegalMoveError):
            state.parse_move(text)


def test_caption_spellings_and_the_finished_game():
    state = after("slither size=5", "c3 b4")
    assert state.move_str(state.parse_move("c3-d4/c4")) == "c3-c4/d4"
    assert after("slither size=5", "c1 b2 c2 b3 c3 b4 c4 d4 c5").outcome().winner == 1
    swapped = after("slither size=5", "c3 swap")
    assert swapped.to_move == 1 and swapped.colours() == ("white", "black")
