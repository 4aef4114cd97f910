"""What games declare and the layers above read: typed options, endings with their
sentences, marks drawn from the renderer's vocabulary, the typed AI and solver hooks."""

from __future__ import annotations

from typing import ClassVar

import pytest

from slimetrail.core.game import (
    ABORTED,
    PLATFORM_REASONS,
    RESIGNED,
    EndReason,
    Game,
    GameError,
    GameOptionError,
    OptionSpec,
    Outcome,
    outcome_sentence,
)
from slimetrail.core.records import Record, parse_json, parse_pgn
from slimetrail.core.registry import GAMES, get_game, parse_game_spec
from slimetrail.render import state_svg

# -- typed options ---------------------------------------------------------------------


def test_options_hold_typed_values_and_keep_their_text_form() -> None:
    game = parse_game_spec("slither size=7 pie=off")
    assert game.options == {"size": 7, "pie": False}
    assert game.option_texts() == {"size": "7", "pie": "off"}
    assert game.spec == "slither size=7 pie=off"
    # Typed values and their text make the same game.
    assert get_game("slither", size=7, pie=False) == game
    trail = parse_game_spec("slimetrail size=9 rules=taylor")
    assert trail.options == {"size": 9, "rules": "taylor", "start": "centre"}
    assert trail.size == 9


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": "nine"}, "slither: option size='nine' is not a whole number"),
        ({"size": "3"}, "slither: option size='3' is not one of 4, 5, 6"),
        ({"size": True}, "slither: option size='True' is not a whole number"),
        ({"pie": "maybe"}, "slither: option pie='maybe' is not on or off"),
        ({"pie": 1}, "slither: option pie='1' is not on or off"),
    ],
)
def test_bad_option_values_are_named(options: dict, message: str) -> None:
    with pytest.raises(GameOptionError) as error:
        get_game("slither", **options)
    assert str(error.value).startswith(message)


def test_an_even_size_is_refused_where_the_range_steps_by_two() -> None:
    with pytest.raises(GameOptionError, match="size='8' is not one of 5, 7, 9, 11, 13, 15"):
        parse_game_spec("slimetrail size=8")


def test_open_ranges_and_declaration_errors() -> None:
    spec = OptionSpec("depth", 3, low=1)
    assert spec.value("12") == 12 and spec.texts() == ()
    with pytest.raises(GameOptionError, match="depth='0' is below 1"):
        spec.value("0")
    with pytest.raises(GameOptionError, match="depth='--5' is not a whole number"):
        spec.value("--5")
    with pytest.raises(GameOptionError, match="not one of 4, 5"):
        OptionSpec("k", 4, (4, 5)).value(6)
    with pytest.raises(TypeError, match="every choice must be of its default's type"):
        OptionSpec("k", 4, (4, "5"))
    with pytest.raises(GameOptionError):  # a default outside its own choices
        OptionSpec("k", 6, (4, 5))


def test_records_and_the_web_carry_option_text() -> None:
    state = parse_game_spec("slither size=5 pie=off").new_state()
    record = Record.from_state(state)
    assert ("Size", "5") in record.header() and ("Pie", "off") in record.header()
    assert '"options": {"size": "5", "pie": "off"}' in record.to_json()
    assert parse_json(record.to_json()).game == state.game
    assert parse_pgn(record.to_pgn()).game == state.game


# -- endings -----------------------------------------------------------------------------


def finished(spec: str, moves: str = "", fen: str = "") -> tuple:
    game = parse_game_spec(spec)
    state = game.state_from_fen(fen) if fen else game.new_state()
    for move in moves.split():
        state.push_str(move)
    outcome = state.outcome()
    assert outcome is not None
    return game, outcome


def test_every_game_reads_its_endings_as_sentences() -> None:
    game = get_game("slime-moku", size=5, k=4)
    assert outcome_sentence(game, Outcome.win(2, reason="row")) == "White made four in a row."
    assert outcome_sentence(game, Outcome.draw(reason="full")) == "The board is full: a draw."
    trail = get_game("slimetrail")
    assert outcome_sentence(trail, Outcome.win(1, reason="goal")) == (
        "The snail reached Green's goal: Green wins."
    )
    assert outcome_sentence(trail, Outcome.win(2, reason="stuck")) == "Green is stuck: Red wins."
    assert outcome_sentence(trail, Outcome.draw(reason="stuck")) == "The snail is stuck: a draw."
    pit = get_game("snake-pit")
    ranked = Outcome.ranking([3, 1, 2], reason="last-left")
    assert outcome_sentence(pit, ranked) == (f"{pit.player_names[2]} wins as the last player left.")
    slither = get_game("slither")
    assert outcome_sentence(slither, Outcome.win(1, reason="bottom-top")) == (
        "Black connected bottom and top."
    )


def possible_outcomes(game: Game, reason: str) -> list[Outcome]:
    """The outcomes an ending can have: a resignation ranks the resigner last (the others
    share first place); a sentence naming a winner is a win of any player; one saying a
    draw (or declaring its draw sentence) a draw."""
    n = game.num_players
    players = range(1, n + 1)
    if reason == RESIGNED:
        return [Outcome.ranking([[p for p in players if p != r], r], reason) for r in players]
    if reason == ABORTED:  # nobody won or lost: every place shared, yet no draw was played
        return [Outcome.draw(n, reason)]
    declared = game.end_reason(reason)
    outcomes = []
    if declared.fields() & {"winner", "first", "verdict"}:
        outcomes += [Outcome.win(p, n, reason) for p in players]
    if declared.draw or "draw" in declared.sentence:
        outcomes.append(Outcome.draw(n, reason))
    return outcomes


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_declared_ending_of_every_game_reads_as_a_sentence(game_id: str) -> None:
    game = GAMES[game_id]()
    names = game.player_names
    for reason in [*game.end_reasons, *PLATFORM_REASONS]:
        outcomes = possible_outcomes(game, reason)
        assert outcomes, f"{game_id}: ending {reason!r} names neither a winner nor a draw"
        for outcome in outcomes:
            sentence = outcome_sentence(game, outcome)
            where = (game_id, reason, outcome.places, sentence)
            assert sentence[0].isupper() and sentence.endswith(".") and "{" not in sentence, where
            # Says what happened, not the reason's bare name ("row"), in words.
            assert not any(word.isdecimal() and int(word) < 10 for word in sentence.split())
            assert len(sentence.split()) >= 3, where
            assert sentence.lower().rstrip(".") != reason.replace("-", " "), where
            if outcome.winner is not None:
                assert names[outcome.winner - 1] in sentence, where
            elif outcome.is_draw:
                assert "draw" in sentence or "no result" in sentence, where
            else:
                assert "share first place" in sentence, where
            # Two players: the loser lost; no place is ever a number in the sentence.
            assert "place 2" not in sentence and "place 3" not in sentence, where


def test_names_come_from_the_caller_and_resigning_is_the_platforms() -> None:
    game = get_game("slime-moku")
    resigned = Outcome.win(1, reason="resigned")
    assert outcome_sentence(game, resigned) == "White resigned: Black wins."
    assert outcome_sentence(game, resigned, ["Ann", "Bob"]) == "Bob resigned: Ann wins."
    three = Outcome.ranking([[1, 3], 2], reason="resigned")
    assert outcome_sentence(get_game("toy-three"), three) == (
        "Blue resigned: Green and Red share first place."
    )


def test_an_undeclared_ending_is_an_error() -> None:
    with pytest.raises(GameError, match="slime-moku: ending 'goal' is not declared"):
        outcome_sentence(get_game("slime-moku"), Outcome.win(1, reason="goal"))


def test_a_sentence_naming_what_no_outcome_gives_fails_at_definition() -> None:
    base = type(get_game("toy-three"))
    with pytest.raises(TypeError, match="names 'loser'"):

        class Broken(base):  # type: ignore[misc, valid-type]
            end_reasons: ClassVar = {"x": EndReason("%(loser)s lost")}


def test_a_real_game_ends_with_its_declared_sentence() -> None:
    game, outcome = finished("slimetrail size=5", "b2 a1")
    assert outcome_sentence(game, outcome) == "The snail reached Green's goal: Green wins."


# -- marks and typed hooks ---------------------------------------------------------------------


def test_marks_are_drawn_only_as_declared() -> None:
    game = get_game("toy-flags")
    state = game.new_state()
    state.push_str("a1")
    svg = state_svg(state, interactive=True)
    assert 'class="cell mark-flag-1 last" data-cell="a1" aria-label="a1, flag of Gold"' in svg
    assert '<circle class="toy-flag p1" cx="0" cy="2" r="0.4" fill="none"' in svg
    # A word no game declares is ignored: Slime-Moku does not know the flag.
    assert game.mark_style("flag-2") is not None
    assert GAMES["slime-moku"].mark_style("flag-2") is None
    assert GAMES["slime-moku"].mark_style("stone-0") is None


def test_the_trail_solver_is_a_solver_object() -> None:
    game = get_game("slimetrail", size=5)
    solver = game.exact_solver()
    assert solver.can_solve(game) and type(solver).__name__ == "TrailSolver"
    ladder = game.ai_ladder()
    assert ladder is not None and ladder.top == len(ladder.levels) >= 1
