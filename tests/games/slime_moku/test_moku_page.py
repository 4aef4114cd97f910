"""The Slime-Moku rules page: it renders, and its diagrams show what their captions say."""

from __future__ import annotations

import re
from html import unescape

from slimetrail.core.registry import GAMES, parse_game_spec
from slimetrail.web.routes.pages import render_fragment, rules_fragment


def test_rules_page_diagrams() -> None:
    source = rules_fragment(GAMES["slime-moku"])
    assert source is not None
    html = str(render_fragment(source))
    figures = re.findall(r'data-game="([^"]+)" data-fen="([^"]+)"', html)
    labels = re.findall(r'aria-label="([^"]+)"', html)
    assert len(figures) == len(labels) == 5
    states = {
        label: parse_game_spec(unescape(spec)).state_from_fen(unescape(fen))
        for label, (spec, fen) in zip(labels, figures, strict=True)
    }
    step = states["Slime-Moku after three moves"]
    assert step.view()["marks"] == {
        "e5": ["stone-1"],
        "f7": ["stone-1"],
        "f6": ["stone-2"],
        "g7": ["snail", "next"],
    }
    five = states["A five in a row for Black"].outcome()
    assert five is not None and five.winner == 1
    stuck = states["A stuck slime on e5"]
    assert stuck.is_stuck() and len(stuck.legal_moves()) == 72
    lifted = states["The stuck slime lifted to b8"]
    assert lifted.move_str(lifted.slime) == "b8" and lifted.to_move == 2
    # The lift is one legal move of the stuck position, and writes Black's stone on e5.
    stuck.push_str("b8")
    assert stuck.fen() == lifted.fen()
