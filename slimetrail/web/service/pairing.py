"""Quick pairing: visitors seeking an opponent for a game, its options and a clock.

A seek belongs to a *pool* (game id, the game's canonical option texts, the clock text):
only seeks of one pool are paired.  Pairing takes seeks with conditional updates (each
seek is claimed from "nobody" by one pairing only, whatever the process), so a seek is
never paired twice; a pairing that cannot gather enough players gives back what it took.

* A visitor seeking (:meth:`Pairing.seek`) takes the oldest compatible seeks of other
  players; if there are enough, the match is made at once (colours at random), else the
  visitor's own seek waits.
* A waiting seek tries again itself (:meth:`Pairing.wait`, called by its page's WebSocket
  when it connects and every few seconds, which also shows the seek is alive): two visitors
  seeking at the same instant, each not yet seeing the other, still meet.  To try, it first
  claims its own seek, so that nobody pairs it meanwhile, and looks only at older seeks.
* A seek is gone when its page closes (:meth:`Pairing.cancel`), when its page has not been
  seen for :data:`ALIVE` seconds (its server died), or after ``Limits.seek_timeout``.

The clock text groups the seeks, and the paired match runs that clock.  Nothing here knows HTTP.
"""

from __future__ import annotations

import json
import random
import secrets
import time
from dataclasses import dataclass
from typing import Any

from slimetrail.i18n import gettext
from slimetrail.web.service.clock import parse_clock
from slimetrail.web.service.errors import Conflict, InvalidRequest, NotFound
from slimetrail.web.service.matches import MatchService, make_game, new_token
from slimetrail.web.settings import Limits
from slimetrail.web.storage.people import PeopleRepository, Seek
from slimetrail.web.storage.repository import Seat
from slimetrail.web.storage.tables import HUMAN

# A waiting page renews its seek every TICK seconds; unseen for ALIVE seconds it is gone.
TICK = 2.0
ALIVE = 15.0
CANDIDATES = 20  # seeks looked at per attempt (some may be claimed meanwhile)
# A seeker finding seeks held by their own page's attempt asks again this often.
JOIN_TRIES, JOIN_PAUSE = 20, 0.05
NO_CREATOR = 0  # a paired match has no creator: nobody is shown another's seat link


@dataclass(frozen=True)
class Paired:
    """A match made: its id, the seat token of whoever asked, and the waiting seeks it took
    (their pages are to be woken)."""

    match_id: str
    token: str
    seeks: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"/play/{self.match_id}?seat={self.token}"


def pool_of(game_id: str, options: dict[str, str], clock: str) -> str:
    return f"{game_id}|{json.dumps(options, sort_keys=True, separators=(',', ':'))}|{clock}"


class Pairing:
    def __init__(self, people: PeopleRepository, matches: MatchService, limits: Limits) -> None:
        self.people, self.matches, self.limits = people, matches, limits

    def window(self) -> tuple[float, float]:
        """(seen since, created since): what an open seek must be to be paired."""
        now = time.time()
        return now - ALIVE, now - self.limits.seek_timeout

    # -- seeking -------------------------------------------------------------------

    def seek(self, owner: str, game_id: str, options: dict[str, Any], clock: str) -> Paired | Seek:
        """Pair ``owner`` at once if enough others wait in the pool, else their waiting seek."""
        if clock:
            parse_clock(clock)  # refused naming the text; "" is no clock
        game = make_game(game_id, options)
        if game.num_players < 2:
            said = gettext("%(game)s has one player: there is nobody to pair with")
            raise InvalidRequest(said % {"game": gettext(game.title)})
        options_text = game.option_texts()
        pool = pool_of(game.id, options_text, clock)
        need = game.num_players - 1
        for _ in range(JOIN_TRIES):
            paired = self.gather(owner, pool, need, None)
            if paired is not None:
                return paired
            # Enough others wait but some are held by their own page's attempt (a moment):
            # ask again, or three seekers could each wait for a newer one that never tries.
            waiting = self.people.candidates(pool, owner, *self.window(), need, held=True)
            if len({seek.owner for seek in waiting}) < need:
                break
            time.sleep(JOIN_PAUSE)
        now = time.time()
        made = Seek(secrets.token_urlsafe(12), owner, game.id, options_text, clock, pool, now)
        self.people.sweep(*self.window())
        self.people.add_seek(made, now)
        return made

    def join(self, owner: str, seek_id: str) -> Paired:
        """Pair ``owner`` with the open seek ``seek_id`` (a click in the lobby)."""
        gone = "that seek is gone: somebody was paired with it, or it was cancelled"
        for _ in range(JOIN_TRIES):
            seek = self.people.seek(seek_id)
            if seek is None or seek.claimed not in (None, seek.owner):
                raise NotFound(gone)
            if seek.owner == owner:
                raise Conflict(gettext("that seek is yours: you cannot be paired with yourself"))
            if seek.claimed is None:
                paired = self.gather(owner, seek.pool, self.players(seek) - 1, seek)
                if paired is not None:
                    return paired
            # Held by its own page's attempt at pairing (a moment): ask again.
            time.sleep(JOIN_PAUSE)
        raise NotFound(gone)

    def wait(self, seek_id: str, owner: str) -> Paired | None:
        """One round of a waiting seek: its match if it has one (or can make one now), else
        it is renewed and ``None``; :class:`NotFound` if it is gone (timed out)."""
        seek = self.find(seek_id, owner)
        if seek.match_id is not None and seek.token is not None:
            self.people.forget(seek_id)
            return Paired(seek.match_id, seek.token)
        if seek.created < time.time() - self.limits.seek_timeout:
            self.people.cancel(seek_id)
            minutes = round(self.limits.seek_timeout / 60)
            said = gettext("nobody came within %(minutes)s minutes; try again later")
            raise NotFound(said % {"minutes": minutes})
        self.people.touch(seek_id, time.time())
        if seek.claimed is not None or not self.people.candidates(
            seek.pool, owner, *self.window(), 1, before=seek
        ):
            return None  # nobody older waits: no need to hold the seek for an attempt
        if self.people.claim(seek_id, owner):
            return self.gather(owner, seek.pool, self.players(seek) - 1, None, own=seek)
        return None

    def cancel(self, seek_id: str) -> None:
        """The seek's page closed: it leaves the pool (unless a pairing has just taken it)."""
        self.people.cancel(seek_id)

    def players(self, seek: Seek) -> int:
        return make_game(seek.game, seek.options).num_players

    def gather(
        self, owner: str, pool: str, need: int, first: Seek | None, own: Seek | None = None
    ) -> Paired | None:
        """Claim ``need`` seeks of other players in ``pool`` (``first`` among them if given)
        and make their match, or give back what was claimed and return ``None``.  ``own``:
        the claimer's own seek, already claimed by them (released with the rest)."""
        taken: list[Seek] = []
        owners = {owner}
        # A waiting seek looks only at older ones: two waiting seeks never try to take each
        # other at the same instant (each holding itself, neither would succeed).
        others = self.people.candidates(pool, owner, *self.window(), CANDIDATES, before=own)
        candidates = others if first is None else [first, *(s for s in others if s != first)]
        for seek in candidates:
            if len(taken) == need:
                break
            if seek.owner in owners:
                continue
            if self.people.claim(seek.id, owner):
                taken.append(seek)
                owners.add(seek.owner)
            elif seek is first:
                break  # the seek asked for is gone: no pairing with others instead
        mine = [own.id] if own is not None else []
        if len(taken) < need:
            self.people.release([seek.id for seek in taken] + mine)
            return None
        try:
            return self.make_match(owner, taken, own)
        except BaseException:
            self.people.release([seek.id for seek in taken] + mine)
            raise

    def make_match(self, owner: str, taken: list[Seek], own: Seek | None) -> Paired:
        """The match of the claimer and the claimed seeks, colours at random."""
        first = taken[0]
        game = make_game(first.game, first.options)
        people: list[tuple[str, Seek | None]] = [(s.owner, s) for s in taken]
        people.append((owner, own))
        random.shuffle(people)
        tokens = [new_token() for _ in people]
        seats = [
            Seat(n, HUMAN, token, owner=who)
            for n, (token, (who, _)) in enumerate(zip(tokens, people, strict=True), 1)
        ]
        clock = parse_clock(first.clock, self.matches.clock_scale) if first.clock else None
        live = self.matches.insert(game, [], seats, NO_CREATOR, clock=clock)
        waiting = {
            seek.id: token
            for token, (_, seek) in zip(tokens, people, strict=True)
            if seek is not None and seek is not own
        }
        self.people.fulfil(live.id, waiting)
        if own is not None:
            self.people.forget(own.id)
        mine = next(t for t, (who, seek) in zip(tokens, people, strict=True) if seek is own)
        return Paired(live.id, mine, tuple(waiting))

    # -- the lobby -------------------------------------------------------------------

    def find(self, seek_id: str, owner: str) -> Seek:
        """``owner``'s seek (:class:`NotFound` if it is gone or somebody else's)."""
        seek = self.people.seek(seek_id)
        if seek is None or seek.owner != owner:
            raise NotFound(
                gettext("this seek is gone: it timed out, was cancelled, or is not yours")
            )
        return seek

    def open_seeks(self) -> list[Seek]:
        return self.people.open_seeks(*self.window())

    def names(self, owners: set[str]) -> dict[str, str]:
        """The display names of those ``owners`` who chose one."""
        return self.people.names(owners)
