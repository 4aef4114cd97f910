"""The match service: creating matches, moves, undo, records and the match JSON.

Every method is synchronous (the app runs them in threads) and works on the database only:
a match is loaded, replayed, checked, and written back with a conditional update on its
``version``, so two writers racing on one match cannot both succeed and a failed request
leaves nothing changed.  Errors are :class:`ApiError` with the HTTP status to answer.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import select, update
from sqlalchemy.orm import sessionmaker

from slimetrail.core.game import Game, GameError, State
from slimetrail.core.registry import GAMES, get_game
from slimetrail.web.db import OPPONENTS, UNFINISHED, MatchRow
from slimetrail.web.diagrams import player_colours

Seat = int | Literal["both"]
MAX_RECORD_CHARS = 1_000_000


class ApiError(Exception):
    """A request the server refuses: ``status`` is the HTTP status, ``message`` says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Loaded:
    """A match row with its game and the position after all its moves."""

    row: MatchRow
    game: Game
    state: State

    @property
    def ply(self) -> int:
        return len(self.row.moves)

    @property
    def thinking(self) -> bool:
        return self.state.outcome() is None and self.row.computer_side == self.state.to_move


def result_text(state: State) -> str:
    outcome = state.outcome()
    if outcome is None:
        return UNFINISHED
    return {1: "1-0", 2: "0-1", None: "1/2-1/2"}[outcome.winner]


def move_seed(match_id: str, ply: int) -> int:
    """A stable seed per match and ply, so a resumed computer move is the same move."""
    digest = hashlib.sha256(f"{match_id}:{ply}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def levels() -> dict[int, str]:
    """The computer's levels, weakest first, with their descriptions."""
    from slimetrail.ai import LEVELS

    return dict(sorted(LEVELS.items()))


def games_json() -> list[dict[str, Any]]:
    return [
        {
            "id": cls.id,
            "title": cls.title,
            "num_players": cls.num_players,
            "player_names": list(cls.player_names),
            "options": [
                {"name": s.name, "default": s.default, "choices": list(s.choices), "help": s.help}
                for s in cls.option_specs
            ],
            "presets": dict(getattr(cls, "presets", {}) or {}),
        }
        for cls in GAMES.values()
    ]


def make_game(game_id: str, options: dict[str, Any]) -> Game:
    """The game, or a 400 naming the unknown game or the bad option."""
    try:
        return get_game(game_id, **options)
    except GameError as exc:
        raise ApiError(400, str(exc)) from None


def replay_moves(game: Game, texts: list[str]) -> tuple[State, list[str]]:
    """The position after ``texts`` and their canonical forms; a 400 names a bad move."""
    state = game.new_state()
    canonical = []
    for number, text in enumerate(texts, 1):
        if state.outcome() is not None:
            raise ApiError(400, f"move {number} ({text!r}): the game is already over")
        try:
            move = state.parse_move(text)
        except GameError as exc:
            raise ApiError(400, f"move {number} ({text!r}): {exc}") from None
        canonical.append(state.move_str(move))
        state.push(move)
    return state, canonical


_URLSAFE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def new_token() -> str:
    return secrets.token_urlsafe(18)


class MatchStore:
    def __init__(self, sessions: sessionmaker) -> None:
        self.sessions = sessions

    # -- reading -------------------------------------------------------------------

    def load(self, match_id: str) -> Loaded:
        # Ids are token_urlsafe text; anything else (NUL bytes, say, which PostgreSQL refuses
        # in a query) cannot name a match, so it never reaches the database.
        row = None
        if _URLSAFE.fullmatch(match_id):
            with self.sessions() as session:
                row = session.get(MatchRow, match_id)
        if row is None:
            raise ApiError(404, f"no match {match_id!r}")
        game = get_game(row.game, **row.options)
        state, _ = replay_moves(game, row.moves)
        return Loaded(row, game, state)

    @staticmethod
    def seat_of(row: MatchRow, token: str | None) -> Seat:
        """The seat a token holds: 1, 2, ``"both"`` (hotseat), or 0 without a token.

        A token that is given but holds no seat of this match is refused (403): a player
        whose link is mistyped should be told, not silently shown a spectator's view.
        """
        if not token:
            return 0
        held = [
            side
            for side in (1, 2)
            if (seat := row.token(side)) is not None
            and secrets.compare_digest(seat.encode(), token.encode())
        ]
        if not held:
            raise ApiError(403, "this seat link is not valid for this match")
        return "both" if len(held) == 2 else held[0]

    def pending_computer_moves(self) -> list[tuple[str, int]]:
        """``(match id, ply)`` of every unfinished match whose computer is to move."""
        with self.sessions() as session:
            rows = session.execute(
                select(MatchRow.id, MatchRow.moves).where(
                    MatchRow.result == UNFINISHED,
                    MatchRow.computer_side.is_not(None),
                    MatchRow.computer_side == MatchRow.to_move,
                )
            ).all()
        return [(match_id, len(moves)) for match_id, moves in rows]

    # -- the match JSON ------------------------------------------------------------

    def match_json(self, loaded: Loaded, seat: Seat) -> dict[str, Any]:
        row, game, state = loaded.row, loaded.game, loaded.state
        outcome = state.outcome()
        may_move = (
            outcome is None
            and not loaded.thinking
            and (seat == "both" or (seat != 0 and seat == state.to_move))
        )
        return {
            "id": row.id,
            "game": row.game,
            "options": dict(game.options),
            "spec": game.spec,
            "title": game.title,
            "player_names": list(game.player_names),
            "player_colours": player_colours(game),
            "opponent": row.opponent,
            "level": row.level,
            "computer_side": row.computer_side,
            "board": game.describe_board(),
            "moves": list(row.moves),
            "ply": loaded.ply,
            "to_move": state.to_move,
            "outcome": None
            if outcome is None
            else {"winner": outcome.winner, "reason": outcome.reason, "result": result_text(state)},
            "view": state.view(),
            "legal": {state.move_str(m): state.click_path(m) for m in state.legal_moves()}
            if may_move
            else {},
            "seat": seat,
            "thinking": loaded.thinking,
            "links": self.links(row, seat),
        }

    @staticmethod
    def links(row: MatchRow, seat: Seat) -> dict[str, str]:
        """Seat links only for a seat holder: their own, and the invite if they created it."""
        base = f"/play/{row.id}"
        links = {"watch": base}
        for side in (1, 2):
            token = row.token(side)
            if token is None:
                continue
            if seat == "both" or seat == side or (seat == row.creator_side != 0):
                links[str(side)] = f"{base}?seat={token}"
        return links

    def view_at(self, match_id: str, ply: int | None) -> dict[str, Any]:
        loaded = self.load(match_id)
        if ply is None:
            ply = loaded.ply
        if not 0 <= ply <= loaded.ply:
            raise ApiError(400, f"ply {ply} is out of range: the match has {loaded.ply} moves")
        state = loaded.state
        for _ in range(loaded.ply - ply):
            state.pop()
        return {"ply": ply, "view": state.view(), "fen": state.fen()}

    # -- changes -------------------------------------------------------------------

    def create(
        self, game_id: str, options: dict[str, Any], opponent: str, level: int, side: int
    ) -> tuple[Loaded, str]:
        """A new match and the creator's seat token."""
        game = make_game(game_id, options)
        if opponent not in OPPONENTS:
            raise ApiError(400, f"opponent {opponent!r} is not one of {', '.join(OPPONENTS)}")
        if side not in (1, 2):
            raise ApiError(400, f"side {side!r} is not 1 or 2")
        if opponent == "computer":
            available = levels()
            if level not in available:
                raise ApiError(
                    400, f"level {level!r} is not one of {', '.join(map(str, sorted(available)))}"
                )
        token = new_token()
        tokens: dict[int, str | None] = {side: token}
        if opponent == "computer":
            tokens[3 - side] = None
        elif opponent == "hotseat":
            tokens[3 - side] = token
        else:
            tokens[3 - side] = new_token()
        return self._insert(
            game,
            [],
            opponent=opponent,
            level=level if opponent == "computer" else None,
            computer_side=3 - side if opponent == "computer" else None,
            creator_side=side,
            tokens=tokens,
        ), token

    def import_record(self, text: str) -> tuple[Loaded, str]:
        """A hotseat match replaying a PGN or JSON record, and its seat token."""
        from slimetrail.core.records import parse_record

        if len(text) > MAX_RECORD_CHARS:
            raise ApiError(400, f"the record is longer than {MAX_RECORD_CHARS} characters")
        try:
            record = parse_record(text)
        except GameError as exc:
            raise ApiError(400, str(exc)) from None
        if "FEN" in record.tags:
            raise ApiError(
                400, "records that start from a set-up position (FEN) cannot be played here"
            )
        _, moves = replay_moves(record.game, list(record.moves))
        token = new_token()
        loaded = self._insert(
            record.game,
            moves,
            opponent="hotseat",
            level=None,
            computer_side=None,
            creator_side=1,
            tokens={1: token, 2: token},
        )
        return loaded, token

    def _insert(
        self,
        game: Game,
        moves: list[str],
        *,
        opponent: str,
        level: int | None,
        computer_side: int | None,
        creator_side: int,
        tokens: dict[int, str | None],
    ) -> Loaded:
        state, moves = replay_moves(game, moves)
        now = datetime.now(UTC)
        row = MatchRow(
            id=secrets.token_urlsafe(8),
            game=game.id,
            options=dict(game.options),
            opponent=opponent,
            level=level,
            computer_side=computer_side,
            creator_side=creator_side,
            seat1=tokens[1],
            seat2=tokens[2],
            moves=moves,
            to_move=state.to_move,
            result=result_text(state),
            version=0,
            created=now,
            updated=now,
        )
        with self.sessions.begin() as session:
            session.add(row)
        return Loaded(row, game, state)

    def move(self, match_id: str, token: str | None, text: str, ply: int) -> Loaded:
        loaded = self.load(match_id)
        seat = self._seat_required(loaded.row, token)
        self._check_current(loaded, ply)
        state = loaded.state
        if loaded.thinking:
            raise ApiError(403, "it is the computer's turn")
        if seat != "both" and seat != state.to_move:
            raise ApiError(403, f"it is player {state.to_move}'s turn, not yours")
        try:
            move = state.parse_move(text)
        except GameError as exc:
            raise ApiError(400, str(exc)) from None
        canonical = state.move_str(move)
        state.push(move)
        return self._save(loaded, [*loaded.row.moves, canonical], state)

    def computer_move(self, match_id: str, ply: int, text: str) -> Loaded | None:
        """Apply the computer's move computed for ``ply``; ``None`` if the match moved on."""
        loaded = self.load(match_id)
        if loaded.ply != ply or not loaded.thinking:
            return None
        loaded.state.push_str(text)
        try:
            return self._save(loaded, [*loaded.row.moves, text], loaded.state)
        except ApiError:
            return None  # changed meanwhile (an undo): the move is no longer wanted

    def undo(self, match_id: str, token: str | None, ply: int) -> Loaded:
        """Take back one move (hotseat) or the player's last move and the computer's reply."""
        loaded = self.load(match_id)
        seat = self._seat_required(loaded.row, token)
        row, state = loaded.row, loaded.state
        if row.opponent == "friend":
            raise ApiError(409, "undo is not available in games between two people")
        self._check_ply(loaded, ply)  # a finished game may be taken back too
        moves = list(row.moves)
        if row.opponent == "hotseat":
            if not moves:
                raise ApiError(409, "there is no move to take back")
            state.pop()
            moves.pop()
        else:
            # Take back moves up to and including the player's own last move.
            while moves:
                state.pop()
                moves.pop()
                if state.to_move == seat:
                    break
            else:
                raise ApiError(409, "you have no move to take back")
        return self._save(loaded, moves, state)

    def _seat_required(self, row: MatchRow, token: str | None) -> Seat:
        seat = self.seat_of(row, token)
        if seat == 0:
            raise ApiError(403, "a seat token is needed to play (spectators cannot move)")
        return seat

    @classmethod
    def _check_current(cls, loaded: Loaded, ply: int) -> None:
        if loaded.state.outcome() is not None:
            raise ApiError(409, f"the game is over ({result_text(loaded.state)})")
        cls._check_ply(loaded, ply)

    @staticmethod
    def _check_ply(loaded: Loaded, ply: int) -> None:
        """A move or undo must name the ply it was made on: another tab may have moved."""
        if ply != loaded.ply:
            raise ApiError(
                409, f"stale: the match has {loaded.ply} moves, not {ply}; reload the match"
            )

    def _save(self, loaded: Loaded, moves: list[str], state: State) -> Loaded:
        """Write ``moves`` if the match is unchanged since ``loaded``; ``state`` is after them.

        The answer is built from what was written, not read back and replayed again.
        """
        row = loaded.row
        values = {
            "moves": moves,
            "to_move": state.to_move,
            "result": result_text(state),
            "version": row.version + 1,
            "updated": datetime.now(UTC),
        }
        with self.sessions.begin() as session:
            changed = session.execute(
                update(MatchRow)
                .where(MatchRow.id == row.id, MatchRow.version == row.version)
                .values(**values)
            ).rowcount
        if changed != 1:
            raise ApiError(409, "stale: the match changed meanwhile; reload the match")
        for name, value in values.items():
            setattr(row, name, value)
        return Loaded(row, loaded.game, state)
