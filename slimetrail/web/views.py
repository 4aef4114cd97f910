"""What a page reads: the match JSON per kind of viewer, the board at a ply, the next clicks
with their helpers (clicks to go, steps, losing clicks, refusals), the games and records.

The JSON's keys and codes (moves, reasons, results) are the same in every language; what a
person reads (names, sentences, labels) is in the request's (:mod:`slimetrail.web.language`).

Each function of a live match is called under its lock (``MatchService.locked``), but
:func:`match_for`, which takes it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from slimetrail import render
from slimetrail.core.game import Game, GameError, Outcome, State, outcome_sentence
from slimetrail.core.i18n import N_
from slimetrail.core.registry import GAMES
from slimetrail.i18n import gettext, ngettext
from slimetrail.web.language import number
from slimetrail.web.service.clock import LOW_TIME_MS
from slimetrail.web.service.matches import Live, MatchService, now_utc, result_text
from slimetrail.web.storage.tables import BOT, COMPUTER, UNFINISHED

# The web's words for the options the games declare (a code, such as ``size``, is the name
# of the field on a /new link and on the command line); another option shows its name.
OPTION_LABELS = {
    "size": N_("Board size"),
    "rules": N_("Rules"),
    "start": N_("Start"),
    "k": N_("In a row"),
    "pie": N_("Pie rule"),
}


def option_label(name: str) -> str:
    return gettext(OPTION_LABELS[name]) if name in OPTION_LABELS else name


def options_words(options: Mapping[str, str]) -> str:
    """Options (as text) as a player reads them ("Board size: 9"), where a game's ``spec``
    is the machine's ``slimetrail size=9``."""
    return ", ".join(f"{option_label(name)}: {value}" for name, value in options.items())


def analysis_said(answer: dict[str, Any]) -> dict[str, Any]:
    """An analysis answer with why it is unsolved (``detail``) in the request's language
    (the sentence's values, a game's name say, translated too)."""
    why = answer.get("why")
    if not why:
        return answer
    values = {key: gettext(value) for key, value in why["values"].items()}
    return answer | {"detail": gettext(why["text"]) % values if values else gettext(why["text"])}


def games_json() -> list[dict[str, Any]]:
    return [
        {
            "id": cls.id,
            "title": gettext(cls.title),
            "num_players": cls.num_players,
            "player_names": [gettext(name) for name in cls.player_names],
            "options": [
                {
                    "name": s.name,
                    "default": s.default_text,
                    "choices": s.texts(),
                    "help": gettext(s.help) if s.help else "",
                }
                for s in cls.option_specs
            ],
            "presets": dict(getattr(cls, "presets", {}) or {}),
            "actions": list(cls.turn.actions),
            "max_clicks": cls.turn.max_clicks,
        }
        for cls in GAMES.values()
    ]


def renamed_by_last_move(live: Live) -> list[dict[str, Any]]:
    """The players the last move renamed (a swap: they now wear each other's colours), as
    ``{"player", "was", "now"}``; ``[]`` after any other move."""
    if not live.moves or live.moves[-1] not in live.game.turn.actions:
        return []
    before = live.state.copy()
    before.pop()
    players = range(1, live.game.num_players + 1)
    return [
        {
            "player": p,
            "was": gettext(before.player_name(p)),
            "now": gettext(live.state.player_name(p)),
        }
        for p in players
        if before.player_name(p) != live.state.player_name(p)
    ]


def move_colours(live: Live) -> list[str]:
    """The colour each move was played in: a later swap changes its player's colour, not the
    move's.  Only an action (swap, pass) can rename players, so the moves from the first
    action on are taken back on a copy to read the colours their movers wore; the moves
    before it were played in the colours of the position before it."""
    first = next(
        (i for i, move in enumerate(live.moves) if move in live.game.turn.actions), live.ply
    )
    state = live.state.copy() if first < live.ply else live.state
    played = [""] * live.ply
    for i in range(live.ply - 1, first - 1, -1):
        state.pop()
        played[i] = render.PALETTE[state.colours()[live.movers[i] - 1]]
    colours = state.colours()
    played[:first] = [render.PALETTE[colours[player - 1]] for player in live.movers[:first]]
    return played


def player_names(state: State) -> list[str]:
    """Every player's name in ``state`` (a swap renames the players after their colours), in
    the request's language."""
    return [gettext(state.player_name(p)) for p in range(1, state.game.num_players + 1)]


def board_view(live: Live, state: State, ply: int) -> dict[str, Any]:
    """The view of ``state``, the position after ``ply`` moves, for the board: its last move
    in the colour of the player the moves table says made it."""
    return render.board_view(state, live.movers[ply - 1] if ply else None)


def match_for(live: Live, token: str | None) -> dict[str, Any]:
    """The match as the holder of ``token`` sees it (takes the match's lock)."""
    with live.lock:
        return match_json(live, live.held_by(token))


def match_json(live: Live, held: tuple[int, ...]) -> dict[str, Any]:
    """The match as a viewer holding the seats ``held`` sees it (call under the lock)."""
    game, state = live.game, live.state
    outcome = live.outcome()
    # An aborted game ended without a result: nobody has a place.
    ranked = None if live.aborted else outcome
    may_move = outcome is None and not live.thinking and state.to_move in held
    clicks = state.next_clicks() if may_move else {}
    colours = state.colours()
    view = board_view(live, state, live.ply)
    out = view.get("out", []) if outcome is None else []
    computers = [seat for seat in live.seats if seat.kind == COMPUTER]
    names = player_names(state)
    players = []
    for seat in live.seats:
        player = seat.player
        players.append(
            {
                "player": player,
                "name": names[player - 1],
                "colour": render.PALETTE[colours[player - 1]],
                "colour_name": colours[player - 1],
                "colour_word": gettext(render.colour_word(colours[player - 1])),
                "kind": seat.kind,
                "level": seat.level,
                "bot": seat.bot,
                "you": player in held,
                "to_move": outcome is None and state.to_move == player,
                "out": player in out,
                "place": ranked.place(player) if ranked else None,
                "result": ranked.for_player(player) if ranked else None,
            }
        )
    return {
        "id": live.id,
        "game": game.id,
        "options": game.option_texts(),
        "spec": game.spec,
        "options_words": options_words(game.non_default_options()),
        "title": gettext(game.title),
        "players": players,
        "player_names": [gettext(name) for name in game.player_names],
        "player_colours": [render.PALETTE[c] for c in colours],
        "opponent": MatchService.opponent(live),
        "level": computers[0].level if computers else None,
        "computer_side": computers[0].player if computers else None,
        "actions": list(game.turn.actions),
        "moves": list(live.moves),
        "movers": list(live.movers),
        "move_colours": move_colours(live),
        "ply": live.ply,
        "to_move": state.to_move,
        "steps": None if outcome is not None else steps_to_go(game, view, 0),
        "outcome": None if outcome is None else outcome_json(outcome, live.aborted),
        # What the player reads at the end, from the game's declared endings.
        "result_sentence": None
        if outcome is None
        else outcome_sentence(game, outcome, names, gettext),
        "resigned": live.resigned,
        # What ended the game off the board (a bot's illegal move), for the players to read.
        "forfeit_note": live.forfeit.note if live.forfeit else None,
        "clock": clock_json(live),
        "action_words": {move: gettext(words) for move, words in game.action_words.items()},
        "renamed": renamed_by_last_move(live),
        "view": view,
        "svg": render.board_svg(
            game,
            view,
            colours=colours,
            names=names,
            targets=[click for click in clicks if click not in game.turn.actions],
            interactive=True,
            label=board_label(game),
            gettext=gettext,
        ),
        "clicks": clicks,
        "losing": losing_clicks(state, clicks),
        "refusals": refusals(state, clicks) if may_move else {},
        "seat": legacy_seat(held),
        "seats": list(held),
        "thinking": live.thinking,
        "can_undo": bool(held)
        and MatchService.undo_refusal(live) is None
        and MatchService.undo_plies(live, held) > 0,
        "links": links(live, held),
        "rematch": rematch_link(live, held),
    }


def clock_json(live: Live) -> dict[str, Any] | None:
    """The time control, each seat's milliseconds left now (by seat, player 1 first), whose
    clock runs (``None``: none, the game is over or not started), whether the clocks wait
    for a player to arrive, and below how many ms the page warns."""
    if live.clock is None:
        return None
    waiting = live.clock_waits and live.outcome() is None
    return {
        "control": live.clock.text,
        "per_move": live.clock.per_move,
        "remaining_ms": live.clock_left(now_utc()),
        "running": live.state.to_move if live.outcome() is None and not waiting else None,
        "waiting": waiting,
        "low_ms": LOW_TIME_MS,
    }


def links(live: Live, held: tuple[int, ...]) -> dict[str, str]:
    """Seat links only for a seat holder: their own, and every invite if they created it."""
    base = f"/play/{live.id}"
    links = {"watch": base}
    creator = live.creator_seat in held
    for seat in live.seats:
        if seat.token is not None and (creator or seat.player in held):
            links[str(seat.player)] = f"{base}?seat={seat.token}"
    return links


def rematch_link(live: Live, held: tuple[int, ...]) -> str | None:
    """The rematch for this viewer: their own seat there (the seats keep their tokens)."""
    if live.rematch is None:
        return None
    token = live.seat(held[0]).token if held else None
    return f"/play/{live.rematch}" + (f"?seat={token}" if token else "")


def view_json(live: Live, ply: int | None) -> dict[str, Any]:
    """The board after ``ply`` moves (the current one for ``None``)."""
    wanted, state = live.position_at(ply)
    view = board_view(live, state, wanted)
    # Drawn as the live board is (cell names on hover, the page's "Cell names" setting).
    svg = render.board_svg(
        live.game,
        view,
        colours=state.colours(),
        interactive=True,
        label=gettext("after move %(ply)s") % {"ply": wanted},
        names=player_names(state),
        gettext=gettext,
    )
    return {"ply": wanted, "view": view, "fen": state.fen(), "svg": svg}


def clicks_json(live: Live, prefix: list[str], clicks: dict[str, str | None]) -> dict[str, Any]:
    """The next legal ``clicks`` after ``prefix`` and the board with them marked."""
    actions = live.game.turn.actions
    view = board_view(live, live.state, live.ply)
    svg = render.board_svg(
        live.game,
        view,
        colours=live.state.colours(),
        names=player_names(live.state),
        targets=[click for click in clicks if click not in actions],
        interactive=True,
        label=board_label(live.game),
        gettext=gettext,
    )
    return {
        "to_go": clicks_to_go(live.state, prefix, clicks),
        "steps": steps_to_go(live.game, view, len(prefix)),
        "ply": live.ply,
        "prefix": prefix,
        "clicks": clicks,
        "losing": losing_clicks(live.state, clicks),
        "svg": svg,
    }


GRAPH_LABEL = N_("Evaluation graph: each player's chances after every move; click a move to see it")
START_TITLE = N_("the start")


def board_label(game: Game) -> str:
    return gettext("The board of %(game)s") % {"game": gettext(game.title)}


def length_text(before: int | None, after: int | None) -> str:
    """The game's length under best play before and after a move, or "" when not proven."""
    if before is None or after is None:
        return ""
    said = ngettext(
        "Game length under best play: %(before)s ply before the move, %(after)s after.",
        "Game length under best play: %(before)s plies before the move, %(after)s after.",
        before,
    )
    return said % {"before": before, "after": after}


def review_json(game: Game, review: dict[str, Any]) -> dict[str, Any]:
    """A review as ``GET /api/matches/{id}/review`` serves it: the plies of
    :func:`slimetrail.review.review_moves`, each with the words of its verdict, the game's
    length under best play in words (plural forms need the server's catalogue), whether it is
    a turning point, and the evaluation graph (SVG)."""
    from slimetrail.review import TURNING, VERDICT_TEXT

    plies = [
        entry
        | {
            "verdict_text": gettext(VERDICT_TEXT[entry["verdict"]]) if entry["verdict"] else "",
            "turning": entry["verdict"] in TURNING,
            "length_text": length_text(entry.get("plies_before"), entry.get("plies_after")),
        }
        for entry in review["plies"]
    ]
    points = [review.get("start", {})] + [entry["eval"] for entry in plies]
    titles = [gettext(START_TITLE)] + [
        f"{entry['ply']}. {entry['move']}"
        + (f": {entry['verdict_text']}" if entry["verdict_text"] else "")
        for entry in plies
    ]
    graph = render.evaluation_graph_svg(
        [{int(player): value for player, value in point.items()} for point in points],
        colours=game.player_colours,
        turning=[entry["ply"] for entry in plies if entry["turning"]],
        titles=titles,
        label=gettext(GRAPH_LABEL),
    )
    return {"plies": plies, "graph": graph}


def record_text(live: Live, format: str, review: dict[str, Any] | None = None) -> str:
    """The match as a PGN or JSON record; with ``review``, its verdicts as PGN comments."""
    from slimetrail.core.records import Record

    tags = {"Event": f"Slimetrail {MatchService.opponent(live)} match", "Site": f"/play/{live.id}"}
    for seat in live.seats:
        name = live.game.player_names[seat.player - 1]
        if seat.kind == COMPUTER:
            name = f"Computer (level {seat.level})"
        elif seat.kind == BOT:
            name = f"Bot {seat.bot}"
        tags[f"Player{seat.player}"] = name
    if live.clock is not None:
        tags["TimeControl"] = live.clock.text
    record = Record.from_state(live.state, **tags)
    # A resignation ends the game too; an aborted one has no result (``*``).
    record.result = UNFINISHED if live.aborted else result_text(live)
    if review is not None:
        from slimetrail.review import verdict_comment

        for index, entry in enumerate(review["plies"]):
            comment = verdict_comment(entry)
            if comment is not None:
                record.comments[index] = comment
    return record.to_json() if format == "json" else record.to_pgn()


CLICK_WALK_LIMIT = 400  # next_clicks calls spent counting a compound move's clicks to go


def clicks_to_go(
    state: State, prefix: list[str], clicks: dict[str, str | None]
) -> list[int] | None:
    """The fewest and most clicks that still complete a move after ``prefix`` (whose next
    clicks are ``clicks``), for any game, by walking :meth:`State.next_clicks`; ``None`` if
    the walk would take more than :data:`CLICK_WALK_LIMIT` calls."""
    budget = [CLICK_WALK_LIMIT]

    def walk(path: list[str], options: dict[str, str | None]) -> tuple[int, int] | None:
        lows, highs = [], []
        for click, move in options.items():
            if move is not None:
                lows.append(1)
                highs.append(1)
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return None
            found = walk([*path, click], state.next_clicks([*path, click]))
            if found is None:
                return None
            lows.append(found[0] + 1)
            highs.append(found[1] + 1)
        return (min(lows), max(highs)) if lows else None

    found = walk(prefix, clicks)
    return None if found is None else list(found)


def steps_to_go(game: Game, view: dict[str, Any], made: int) -> dict[str, Any] | None:
    """For a game whose turns are several like steps (:attr:`TurnShape.step_words`), how many
    of the position's ``view()["to_move_steps"]`` are still to make after ``made`` clicks
    (a step half clicked still counts): ``{"left", "total", "text"}``, the text as
    ``"2 snakes"``; ``None`` for other games."""
    turn, total = game.turn, view.get("to_move_steps")
    if not turn.step_words or total is None:
        return None
    left = total - made // turn.step_clicks
    words = gettext(turn.step_words[left != 1])
    return {"left": left, "total": total, "text": f"{number(left)} {words}"}


def losing_clicks(state: State, clicks: dict[str, str | None]) -> list[str]:
    """The clicks that complete a move losing the game at once (a step into the opponent's
    goal, say): the page marks them as a warning."""
    mover, losing = state.to_move, []
    for click, text in clicks.items():
        if text is None:
            continue
        state.push(state.parse_move(text))
        try:
            outcome = state.outcome()
        finally:
            state.pop()
        if outcome is not None and outcome.for_player(mover) == "loss":
            losing.append(click)
    return losing


@functools.lru_cache(maxsize=64)
def cell_names(game: Game) -> tuple[str, ...]:
    """The names of the board's cells (games are immutable: described once)."""
    return tuple(cell["name"] for cell in game.describe_board()["cells"])


def refusals(state: State, clicks: dict[str, str | None]) -> dict[str, str]:
    """Why each cell that is no legal first click is refused, in the game's own words (its
    ``parse_move`` error), for a player who clicks it."""
    answer = {}
    for name in cell_names(state.game):
        if name in clicks:
            continue
        try:
            state.parse_move(name)
        except GameError as exc:
            answer[name] = exc.translated(gettext)
        else:  # a whole move in text, yet no first click (a compound move's later part)
            answer[name] = gettext("%(cell)s does not start a legal move here") % {"cell": name}
    return answer


def outcome_json(outcome: Outcome, aborted: bool = False) -> dict[str, Any]:
    """The ending; an aborted game's has no places and the records' unfinished result."""
    return {
        "places": None if aborted else list(outcome.places),
        "result": UNFINISHED if aborted else outcome.result_text(),
        "reason": outcome.reason,
        "winner": outcome.winner,
    }


def legacy_seat(held: tuple[int, ...]) -> int | str:
    """The first API's ``seat``: 0 (watching), the player number, or ``"both"`` (several)."""
    if not held:
        return 0
    return held[0] if len(held) == 1 else "both"
